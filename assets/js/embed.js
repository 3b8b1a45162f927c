// Embedding Swarm Lab in a course page (an iframe with ?embed=1).
//
// A side-effect module (app.js imports it first).  With ?embed=1:
//   * <html> gets the class "embed" (app.css hides the site header and footer, so the
//     lab fills the frame);
//   * inside an iframe (window.parent !== window) the page tells its parent how tall
//     its content is, so the host can size the frame without a scrollbar:
//         parent.postMessage({type: "swarmlab:height", height}, "*")
//     on load, whenever the content's size changes (ResizeObserver), when the lab
//     becomes ready, and when the parent asks with {type: "swarmlab:get-height"};
//     the same height is never posted twice in a row;
//   * links that leave the app (sources, DOIs) open in a new tab instead of replacing
//     the lab inside the frame.
// Other URL parameters (lab=, trial=, controls=minimal) are read by app.js and the labs.
//
// Height = the bottom of the page's content (body), not the frame's own height, so it can
// shrink as well as grow.  While the app is still starting (or showing its error panel,
// both of which are fixed overlays that take no room in the flow) the height is at least
// BOOT_MIN_HEIGHT, so the loading card and the error panel stay readable.

const params = new URLSearchParams(location.search);
export const EMBED = params.get("embed") === "1";
export const FRAMED = (() => {
  try { return window.parent !== window; } catch (e) { return true; }
})();
export const BOOT_MIN_HEIGHT = 440;
export const MESSAGE_TYPE = "swarmlab:height";

/** The height a lab may plan its stage for: the window's; but in a frame that grows with its
 *  content (the host's auto-height script, above) the window is as tall as the content, so a
 *  stage sized to it would grow with every message.  There the screen's height, less the
 *  browser's own bars, bounds it.  The labs' CSS reads it as --view-h (set here). */
export function viewHeight() {
  const h = window.innerHeight || 800;
  if (!EMBED || !FRAMED) return h;
  const screenH = (window.screen && window.screen.availHeight) || h;
  return Math.min(h, Math.max(480, screenH - 140));
}

function setViewHeight() {
  document.documentElement.style.setProperty("--view-h", `${viewHeight()}px`);
}

/** Height in CSS pixels of the page's content (what the iframe needs to show it all). */
export function contentHeight() {
  const body = document.body;
  if (!body) return 0;
  const root = document.documentElement;
  const rect = body.getBoundingClientRect();
  const style = getComputedStyle(body);
  let h = rect.height + (parseFloat(style.marginTop) || 0) + (parseFloat(style.marginBottom) || 0);
  // Children that overflow the body (absolutely positioned panels, for example).
  for (const el of body.children) {
    const pos = getComputedStyle(el).position;
    if (pos === "fixed" || el.hidden) continue;
    const r = el.getBoundingClientRect();
    h = Math.max(h, r.bottom + window.scrollY);
  }
  const booting = !root.classList.contains("lab-ready") || root.classList.contains("boot-failed");
  if (booting) h = Math.max(h, BOOT_MIN_HEIGHT);
  return Math.ceil(h);
}

let last = -1;
let pending = false;

function post() {
  pending = false;
  const height = contentHeight();
  if (height === last || height <= 0) return;
  last = height;
  try {
    window.parent.postMessage({ type: MESSAGE_TYPE, height }, "*");
  } catch (e) {
    /* a parent that went away: nothing to tell */
  }
}

function schedule() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(post);
  // rAF does not run in a frame that is off screen; post soon anyway.
  setTimeout(() => { if (pending) post(); }, 200);
}

function openExternalLinksInNewTab(ev) {
  const a = ev.target && ev.target.closest ? ev.target.closest("a[href]") : null;
  if (!a || a.target) return;
  let url;
  try { url = new URL(a.href, location.href); } catch (e) { return; }
  if (url.origin !== location.origin || url.protocol !== location.protocol) {
    a.target = "_blank";
    a.rel = "noopener noreferrer";
  }
}

/** In a frame the page's own scrolling cannot reach the course page: a frame as tall as its
 *  content (the auto-height script above) has nothing of its own to scroll, so an in-page link
 *  ("Trials ↓") only changed the address's #.  `scrollIntoView` scrolls every scrolling box
 *  up to the course page's (browsers allow it across origins), so in-page links use it, and
 *  the keyboard follows them as it does on a page of its own. */
export function showInFrame(target, block = "start") {
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  target.scrollIntoView({ block, behavior: reduced ? "auto" : "smooth" });
}

function followInPageLink(ev) {
  const a = ev.target && ev.target.closest ? ev.target.closest('a[href^="#"]') : null;
  if (!a || ev.defaultPrevented || ev.button || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  let target = null;
  try { target = document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1))); } catch (e) { /* bad % */ }
  if (!target) return; // (#code=... and the like: the labs read those from the address)
  ev.preventDefault();
  showInFrame(target);
  if (!target.hasAttribute("tabindex") && !target.matches("a[href], button, input, select, textarea")) {
    target.setAttribute("tabindex", "-1");
  }
  target.focus({ preventScroll: true });
}

function start() {
  document.documentElement.classList.add("embed");
  document.addEventListener("click", openExternalLinksInNewTab, true);
  if (!FRAMED) return;
  document.addEventListener("click", followInPageLink);
  setViewHeight();
  window.addEventListener("resize", setViewHeight);
  const ro = typeof ResizeObserver === "function" ? new ResizeObserver(schedule) : null;
  const observe = () => {
    if (!ro || !document.body) return;
    ro.observe(document.body);
    for (const el of document.body.children) ro.observe(el);
  };
  if (document.body) observe();
  else document.addEventListener("DOMContentLoaded", () => { observe(); schedule(); }, { once: true });
  // Boot state changes (lab-ready, boot-failed) change the minimum height.
  new MutationObserver(schedule).observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  window.addEventListener("load", schedule);
  window.addEventListener("resize", schedule);
  window.addEventListener("swarmlab:lab-ready", schedule);
  window.addEventListener("swarmlab:boot-failed", schedule);
  window.addEventListener("message", (ev) => {
    if (ev.source === window.parent && ev.data && ev.data.type === "swarmlab:get-height") {
      last = -1;
      schedule();
    }
  });
  schedule();
}

if (EMBED) start();
