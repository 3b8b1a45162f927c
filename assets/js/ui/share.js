// Shareable state: read settings from the page URL and build "Copy link" URLs.
//
// The URL carries the lab, the sample/seed and every non-default setting, e.g.
//   ?lab=swarm&sample=7&alignment=0&mode=nearest&k=7
// Opening it reproduces the run from its restart with those settings.  Reading is
// lenient and goes through the engine's own specs (session.op_parse_query):
// out-of-range numbers are clamped, unknown or malformed values are ignored, and
// each case produces a notice the page shows.  Nothing ever blanks the page.

import { clip } from "./notices.js";
import { say } from "./access.js";

/** The whole page's own query keys and the values each takes (every lab keeps them). */
export const PAGE_VALUES = {
  embed: ["1"], controls: ["minimal"], theme: ["projector", "standard"], shapes: ["large"], engine: ["main", "worker"],
};
export const PAGE_KEYS = new Set(["lab", ...Object.keys(PAGE_VALUES)]);
/** The page keys a "Copy link" keeps (see shareUrl). */
export const LINK_PAGE_KEYS = ["controls", "theme", "shapes"];
/** Keys that one lab's page reads itself (a Swarm Lab trial, the Three rules world size). */
export const LAB_PAGE_KEYS = { trial: "swarm", world: "boids" };
/** Query keys that belong to the shell (or a lab's page, like the boids world size), not to a lab's parameters. */
export const SHELL_KEYS = new Set([...PAGE_KEYS, ...Object.keys(LAB_PAGE_KEYS)]);

/** The page's own keys of `params` (URLSearchParams): all that a lab other than the one a
 *  link names gets of it (a link's settings and code are for its own lab). */
export function pageParams(params) {
  return new URLSearchParams([...params].filter(([k]) => PAGE_KEYS.has(k)));
}

/** The notice of a key given more than once in a link (the page's keys and a lab's alike). */
export const givenTwice = (key, times, first) => `${key} was given ${times} times; the first value (${clip(first, 40)}) is used`;

/** The Python code a link carries in its fragment (#code=..., ui/rules.js packs it), or null. */
export function linkCode() {
  return new URLSearchParams(location.hash.slice(1)).get("code");
}

/** Settings for `lab` found in `params` (URLSearchParams): a Promise of {values, notices}.
 *  A key given twice keeps its FIRST value, as `lab` and `trial` do (URLSearchParams.get),
 *  and a notice says so. */
export async function readQuery(engine, lab, params) {
  const query = Object.create(null); // so that a key such as __proto__ is a setting like any other
  const repeated = new Map();
  for (const [k, v] of params.entries()) {
    if (SHELL_KEYS.has(k)) continue;
    if (Object.hasOwn(query, k)) repeated.set(k, (repeated.get(k) || 1) + 1);
    else query[k] = v;
  }
  const notes = [...repeated].map(([k, n]) => givenTwice(k, n, query[k]));
  for (const [k, owner] of Object.entries(LAB_PAGE_KEYS)) {
    const v = params.get(k);
    if (owner !== lab && v !== null) {
      notes.push(`${k}=${clip(v, 40)} was ignored: only lab=${owner} reads it`);
    }
  }
  if (Object.keys(query).length === 0) return { values: {}, notices: notes };
  const res = await engine.tryCall(lab, "parse_query", { query });
  if (!res.ok) return { values: {}, notices: [...notes, res.error] };
  return { values: res.value.values, notices: [...notes, ...res.value.notices] };
}

function encode(spec, value) {
  if (spec.kind === "bool") return value ? "1" : "0";
  if (spec.kind === "float") return String(Math.round(Number(value) * 1e6) / 1e6);
  return String(value);
}

/**
 * A full URL for the current page that opens `lab` with `values`.
 * Only settings that differ from their spec default are written.
 * `extra` adds shell keys (e.g. {trial: "passage"}).
 * The link keeps the page's look (`controls=minimal`, `theme=projector`, `shapes=large`) and opens as a page of
 * its own, also when copied from an embedded lab (`embed=1` is not carried over: a classmate
 * gets the full page, where code in a link can be run; a teacher who embeds it adds `embed=1`,
 * as the README says).
 */
export function shareUrl(lab, values, specs, extra = {}) {
  const q = new URLSearchParams();
  q.set("lab", lab);
  // the page's look as the teacher set it up; not embed=1 (above) nor engine= (a developer's switch)
  const here = new URLSearchParams(location.search);
  for (const k of LINK_PAGE_KEYS) if (PAGE_VALUES[k].includes(here.get(k))) q.set(k, here.get(k));
  for (const [k, v] of Object.entries(extra)) if (v !== null && v !== undefined) q.set(k, String(v));
  for (const spec of specs) {
    if (!(spec.name in values)) continue;
    const v = values[spec.name];
    const differs = spec.kind === "float" || spec.kind === "int"
      ? Math.abs(Number(v) - Number(spec.default)) > 1e-12
      : v !== spec.default;
    if (differs) q.set(spec.name, encode(spec, v));
  }
  return `${location.href.split(/[?#]/)[0]}?${q.toString()}`;
}

/** The link to a lab's run as its session says (op_link: {values, extra}): a promise of the URL. */
export async function linkOf(engine, lab, specs) {
  const link = await engine.call(lab, "link");
  return shareUrl(lab, link.values, specs, link.extra);
}

/** What a copied link opens.  A run with nothing changed during it (no marker on its chart,
 *  no treat) replays exactly; after a change, the link starts from the beginning with what is
 *  on screen now, which is another run, and says so, naming what this lab lets a student do
 *  during a run (`done`: Lab 3 has a treat and no threat). */
export function copiedWords(changedDuringRun = false, done = "setting changes") {
  return changedDuringRun
    ? `Link copied. Opening it starts from the beginning with the settings on screen now; what was done during this run (${done}) is not in the link, so it is not this run exactly.`
    : "Link copied. Opening it replays this run from its start with the same settings.";
}

/** A copy's answer, and where the link opens: a page opened as a file (the single file from a
 *  USB stick, say) copies a file:// link, which opens only where that file sits at that place. */
export function copiedHere(words, protocol = typeof location !== "undefined" ? location.protocol : "https:") {
  return protocol === "file:"
    ? `${words} It points to this file on this computer, so it opens only where the same file sits in the same folder; ` +
      "to share the run, put the file where the others can reach it, or use the lab's web address."
    : words;
}

/** How long a copy's answer stays beside its button (it is spoken once as well). */
export const COPY_NOTE_MS = 20000;

/** Write a copy's answer beside the button that asked for it, where the student is looking
 *  (the page's notices sit at its top, a screen or more away), and speak it in the page's one
 *  live region (`spoken`: shorter words, e.g. without a link).  One note per button row,
 *  replaced by the next answer; an answer that is not a warning goes after `ms`. */
export function answerBeside(button, words, kind = "info", ms = COPY_NOTE_MS, spoken = words) {
  const row = button.closest(".btn-row") || button;  // (a button on its own: the note right under it)
  let note = row.nextElementSibling;
  if (!note || !note.classList.contains("copy-note")) {
    note = document.createElement("p");
    note.className = "copy-note";
    row.after(note);
  }
  note.dataset.kind = kind;
  note.textContent = words;
  note.scrollIntoView({ block: "nearest" }); // (a button at the window's bottom edge: its answer just below)
  clearTimeout(note.__timer);
  // (a link to copy by hand stays until the next copy: no time limit on a student selecting it)
  if (kind !== "warn") note.__timer = setTimeout(() => { note.textContent = ""; }, ms);
  say(spoken);
}

/** Copy `url` (a string, or a promise of one) to the clipboard and say `done` beside `button`
 *  (:func:`answerBeside`).  Where the page may not write the clipboard (a frame without
 *  clipboard-write, an old browser) it offers the link in a prompt; where prompts are blocked
 *  too (a sandboxed frame), or the prompt is dismissed, the note shows the link to copy by
 *  hand, so the click is never silent. */
export async function copyLink(url, button, done = copiedWords()) {
  const said = () => copiedHere(typeof done === "function" ? done() : done); // (a function: words that wait for the link)
  const notify = (words, kind, spoken) => answerBeside(button, words, kind, COPY_NOTE_MS, spoken);
  if (typeof url !== "string") {
    // A link still being made (a promise): the clipboard is asked now, inside the click, with
    // the text to follow; WebKit refuses a copy asked for after an await.
    const text = Promise.resolve(url);
    if (typeof ClipboardItem === "function" && navigator.clipboard && navigator.clipboard.write) {
      try {
        await navigator.clipboard.write([new ClipboardItem({
          "text/plain": text.then((u) => new Blob([u], { type: "text/plain" })) })]);
        notify(said());
        return await text;
      } catch (err) { /* not with a promise here: copy the text below */ }
    }
    url = await text;
  }
  try {
    await navigator.clipboard.writeText(url);
    notify(said());
    return url;
  } catch (err) { /* no clipboard here: the prompt below */ }
  let shown = null;
  try { shown = window.prompt("Copy this link:", url); } catch (err) { /* prompts blocked */ }
  if (shown === null) {
    if (url.length > 480) {
      notify("This page could not copy the link (a course page's frame may not allow it): open the lab in a tab of its own and copy it there.", "warn");
    } else {  // (a screen reader hears where the link is, not the link itself)
      notify(`This page could not copy the link; select it and copy it: ${url}`, "warn",
        "This page could not copy the link; it is shown under the button, to copy by hand.");
    }
  }
  return url;
}
