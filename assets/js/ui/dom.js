// Small DOM and text helpers shared by the labs.

import { notify } from "./notices.js";

/** Add a stylesheet once (a lab's own CSS, loaded when the lab mounts). */
export function ensureStylesheet(href) {
  if (document.querySelector(`link[rel="stylesheet"][href="${href}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  link.addEventListener("error", () => {
    link.remove(); // so that a later call (a retry) asks again
    notify(`Part of the page's look (${href.split("/").pop()}) could not be loaded, so it may look plain; ` +
      "it still works. Reload to try again.", "warn");
  });
  document.head.append(link);
}

/** The device pixel ratio used for canvases, clamped to [1, 3]. */
export function pixelRatio() {
  return Math.max(1, Math.min(3, window.devicePixelRatio || 1));
}

/**
 * Size a canvas's backing store for a CSS size at the device pixel ratio, so lines
 * stay crisp on high-DPI screens.  Touches the canvas only when the size changed
 * (assigning width/height clears it).  Returns the ratio used.
 */
export function fitCanvas(canvas, cssW, cssH) {
  const dpr = pixelRatio();
  const pw = Math.round(cssW * dpr);
  const ph = Math.round(cssH * dpr);
  if (canvas.width !== pw || canvas.height !== ph) {
    canvas.width = pw;
    canvas.height = ph;
  }
  return dpr;
}

/** An HTML element: el("p", {class, text, html, ...attributes}, ...children).
 *  ``true`` sets an empty attribute; false, null and undefined leave it out. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "html") e.innerHTML = v;
    else if (v === true) e.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

/** Write a node's text only when it changes (live regions are not re-announced, and no
 *  layout is dirtied for nothing). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** "1 boid", "3 boids": a count with the word in the right number. */
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** 2 -> "2nd", 3 -> "3rd", 4 -> "4th", 11 -> "11th", 21 -> "21st". */
export function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const end = teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${end}`;
}

/** The text with its first letter in capitals ("shared heading P" -> "Shared heading P"). */
export const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);
/** `s` as a sentence: with its final full stop (none added after . ! or ?). */
export const sentence = (s) => (/[.!?]$/.test(s) ? s : `${s}.`);

// Numbers as prose writes them, whatever the reader's locale: thousands separated (2,400),
// and small whole numbers in words ("five model minutes", "eight seeds").
export const num = (x) => x.toLocaleString("en-GB");
const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
export const say = (x) => (Number.isInteger(x) && x >= 0 && x < WORDS.length ? WORDS[x] : num(x));

/** Text made safe to put into HTML markup (& < > " '). */
export const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Where a tab list's keys move the focus from tab `i` of `n` (WAI-ARIA tabs: Left and Right
 *  wrap round, Home and End), or null for any other key. */
export function tabListMove(key, i, n) {
  if (key === "ArrowRight") return (i + 1) % n;
  if (key === "ArrowLeft") return (i - 1 + n) % n;
  if (key === "Home") return 0;
  if (key === "End") return n - 1;
  return null;
}
