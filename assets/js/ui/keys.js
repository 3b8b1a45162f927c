// Keyboard: the global shortcuts, the keyboard-help dialog, the visible key hints and
// roving-tabindex lists.  One table (LAB_ACCESS) says, per lab, which element does what,
// by the classes the labs already give their elements; a shortcut clicks the same button
// a pointer would, so keys and buttons can never disagree.
//
// Shortcuts never fire while the user types (text, number and search boxes, selects,
// text areas), with Ctrl/Alt/Meta held, or for a key the focused element already used
// (a stage's own keys call preventDefault, so Space on Lab 3's stage stays the treat).  The
// single-letter ones also skip every form control (sliders and checkboxes too: a screen
// reader in focus mode passes its own letters through there), and the key list turns them
// off (WCAG 2.1.4; the choice is kept in localStorage where the browser allows it).

// `does`: the lab shortcut a key calls (LAB_ACCESS[lab].shortcuts); the list shows a key only
// in the labs that have it (Three rules has no threat and no individual to step through), in
// the lab's own words where it has them (LAB_ACCESS[lab].keyWords).
export const GLOBAL_KEYS = [
  { key: " ", show: "Space", does: "play", what: "play or pause (on a stage with a Space of its own, below, that comes first)" },
  { key: "r", show: "R", does: "restart", what: "restart" },
  { key: "t", show: "T", does: "threat", what: "send a threat past the selected animal" },
  { key: "n", show: "N", does: "next", what: "next individual" },
  { key: "p", show: "P", does: "prev", what: "previous individual" },
  { key: "d", show: "D", what: "describe what the stage shows now" },
  { key: "?", show: "?", what: "this list of keys" },
  { key: "Escape", show: "Esc", what: "close this list" },
];

/** Letter -> the lab shortcut it calls (GLOBAL_KEYS' `does`; Space has its own test). */
const LETTER_ACTIONS = new Map(GLOBAL_KEYS.filter((k) => k.does && k.key !== " ").map((k) => [k.key, k.does]));

/** The global keys that do something in `lab` (all of them for an unknown lab). */
export function labKeys(lab) {
  const shortcuts = (LAB_ACCESS[lab] || {}).shortcuts;
  return GLOBAL_KEYS.filter((k) => !k.does || !shortcuts || k.does in shortcuts);
}

function clickIn(section, selector) {
  const b = section.querySelector(selector);
  if (!b || b.hidden || b.disabled || !b.offsetParent) return false;
  b.click();
  return true;
}

/** Per lab: where the stage is, what each shortcut does, what the stage's own keys are. */
export const LAB_ACCESS = {
  swarm: {
    stage: ".swarm-canvas",
    barAfter: ".swarm-transport", // after Play and the disturbances, which stay right under the stage
    heading: [".swarm-layout", "Simulation, controls and measurements"],
    roledescription: "simulation stage",
    stageKeys: [["← →", "previous / next animal (stage focused)"]],
    hintWords: { next: "<kbd>N</kbd>/<kbd>P</kbd> next/previous animal" },
    keyWords: { n: "next animal", p: "previous animal", Escape: "close this list, or the time-limit note" },
    shortcuts: {
      play: (s) => clickIn(s, ".swarm-play"),
      restart: (s) => clickIn(s, ".swarm-restart"),
      threat: (s) => clickIn(s, ".swarm-threat"),
      next: (s) => clickIn(s, ".sense-next"),
      prev: (s) => clickIn(s, ".sense-prev"),
      escape: (s) => {
        const note = s.querySelector(".swarm-limit");
        if (!note || note.hidden) return false;
        note.hidden = true;
        return true;
      },
    },
    hints: ["play", "restart", "threat", "next", "describe"],
    clickOn: ".swarm-threat", // the sound's click
    actions: [
      [".swarm-threat", "Threat sent."],
      [".swarm-turn", (b) => `One individual turned by ${b.dataset.deg} degrees.`],  // the session's turn_one_deg
      [".swarm-restart-trial", "Trial restarted."],
      [".swarm-restart", "Restarted."],
      [".swarm-trial-start", (b) => `Trial started: ${b.closest(".swarm-trial")?.querySelector("h4")?.textContent || ""}.`],
      [".swarm-continue", "Continued."],
      [".swarm-pop-minus", (b) => popWords(b, -1)],
      [".swarm-pop-plus", (b) => popWords(b, 1)],
    ],
    watch: [{
      selector: ".swarm-limit",
      text: (n) => `${n.querySelector("p")?.textContent || "Paused."} The Continue button is on the stage; Escape closes this note.`,
    }],
    // each chart's canvases by the session's chart id (display.charts and describe's charts)
    charts: { agree: [".swarm-chart-agree", ".swarm-live-agree"], space: [".swarm-chart-space", ".swarm-live-space"] },
    roving: [[".swarm-markers", ".swarm-marker"]],
    // one column (ui/reflow.js): stage, live strip, Play row and disturbances, the rule switches,
    // status, access bar, caption, the settings, the measurements and sense panel, the trials
    // (swarm.css's order)
    narrow: [
      { move: ".swarm-status", append: ".swarm-transport" },
      { move: ".swarm-analysis", after: ".swarm-side" },
      { move: ".swarm-trials", after: ".swarm-analysis" },
    ],
  },
  vicsek: {
    stage: ".vk-canvas",
    barAfter: ".vk-legend", // the legend explains the stage, so it stays with it
    heading: [".vk-layout", "Simulation and controls"],
    roledescription: "simulation stage",
    stageKeys: [["← → ↑ ↓", "follow the next / previous arrow (stage focused)"], ["Esc", "stop following"]],
    hintWords: { next: "<kbd>N</kbd>/<kbd>P</kbd> next/previous arrow" },
    keyWords: { n: "follow the next arrow", p: "follow the previous arrow" },
    shortcuts: {
      play: (s) => clickIn(s, ".vk-play"),
      restart: (s) => clickIn(s, ".vk-restart"),
      next: (s, c) => follow(c, 1),
      prev: (s, c) => follow(c, -1),
    },
    hints: ["play", "restart", "next", "describe"],
    extraButtons: [
      { className: "access-follow-prev", text: "◀ Follow previous", run: (c) => follow(c, -1) },
      { className: "access-follow-next", text: "Follow next ▶", run: (c) => follow(c, 1) },
      { className: "access-follow-stop", text: "Stop following", run: (c) => c && c.select(-1) },
    ],
    actions: [[".vk-restart", (b) => `Restarted from seed ${b.dataset.seed}, with the same random nudges.`]],
    charts: { P: [".vk-pplot"] },
    // one column (ui/reflow.js): the knob, Play, P and its plot come right under the stage, so
    // a phone shows the arrows and their shared heading together; then the legend and this bar
    narrow: [{ move: ".vk-controls", after: ".vk-stage" }],
  },
  boids: {
    stage: ".bd-canvas",
    barAfter: ".bd-transport", // Play/Restart stay right under the stage, this bar after them
    heading: [".bd-layout", "Simulation and controls"],
    stageKeys: [["← → ↑ ↓", "move the treat cursor (stage focused)"], ["Enter / Space", "hold the treat (a tap keeps it until the next tap)"], ["Esc", "let go"]],
    shortcuts: {
      play: (s) => clickIn(s, ".bd-play"),
      restart: (s) => clickIn(s, ".bd-restart"),
    },
    hints: ["play", "restart", "describe"],
    hintWords: { play: "<kbd>Space</kbd> play/pause (on the stage: hold the treat)" },
    actions: [
      [".bd-restart", "Restarted."],
      [".bd-preset", (b) => `Preset applied: ${(b.firstChild?.textContent || b.textContent).trim()}.`],
    ],
    charts: { chart: [".bd-chart"] },
    // one column: the chart, then "Ten or ten thousand", go last (Play/Restart are right under
    // the stage at every width)
    narrow: [{ move: ".bd-chart-fig", append: ".bd-side" }, { move: ".bd-scale", after: ".bd-chart-fig" }],
  },
};

const HINT_WORDS = {
  play: "<kbd>Space</kbd> play/pause",
  restart: "<kbd>R</kbd> restart",
  threat: "<kbd>T</kbd> threat",
  next: "<kbd>N</kbd>/<kbd>P</kbd> next/previous",
  describe: "<kbd>D</kbd> describe",
};

const LETTER_HINTS = new Set(["restart", "threat", "next", "describe"]);

/** The visible key hints by a lab's stage (HTML of fixed strings only); also the stage's
 *  description, so while the single-letter keys are off it names none of them. */
export function keyHints(lab) {
  const cfg = LAB_ACCESS[lab];
  const own = (cfg.stageKeys || []).map(([k, w]) => `<kbd>${k}</kbd> ${w}`);
  const words = { ...HINT_WORDS, ...(cfg.hintWords || {}) };
  const global = (cfg.hints || []).filter((h) => letterKeys.on || !LETTER_HINTS.has(h)).map((h) => words[h]);
  const list = letterKeys.on ? "<kbd>?</kbd> all keys" : "the Keys button lists them all";
  return `Keys: ${[...global, ...own].join(" · ")} · ${list}`;
}

/** What Lab 1's "Add 10" (sign 1) or "Remove 10" (-1) did, from the engine's answer to this
 *  press ({N, added, removed}, which the lab keeps on the button as `pressed`: quick presses
 *  all count, so the slider before the click cannot tell); at a bound they do nothing. */
async function popWords(button, sign) {
  return popResultWords(await button.pressed, sign);
}

/** The words for one answer of Add (sign 1) or Remove (-1): spoken (above), and shown beside
 *  the buttons when a press did less than asked (Lab 1's population note). */
export function popResultWords(res, sign) {
  if (!res || !res.ok) return ""; // the lab's notice says what went wrong
  const k = sign > 0 ? res.value.added : res.value.removed;
  if (!(k > 0)) return sign > 0 ? `Already at the most animals, ${res.value.N}.` : `Already at the fewest animals, ${res.value.N}.`;
  const some = k === 1 ? "1 animal" : `${k} animals`;
  return sign > 0 ? `Added ${some}.` : `Removed the ${k === 1 ? "most recently added animal" : `${k} most recently added animals`}.`;
}

/** Lab 2's next / previous arrow: its own follow(delta), which knows how many arrows there are. */
function follow(c, delta) {
  if (!c || typeof c.follow !== "function") return false;
  c.follow(delta);
  return true;
}

/** True if the key goes to a place where the user types text. */
export function typing(target) {
  if (!target || !target.tagName) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return !["range", "checkbox", "radio", "button", "submit", "reset", "color"].includes(target.type);
  return false;
}

/** True if a letter key on this element belongs to it or to a screen reader: a form control of
 *  any kind (a slider or a checkbox puts NVDA and JAWS into focus mode, where the reader's own
 *  letter keys reach the page) or a text field.  The single-letter shortcuts skip these. */
export function letterTaken(target) {
  if (typing(target)) return true;
  return Boolean(target && target.closest && target.closest("input, select, textarea, [role=slider], [contenteditable]"));
}

/** An on/off choice of the key list, on until turned off, kept in this browser where it may
 *  store it (not where storage is blocked: then for this visit). */
export function rememberedSwitch(storeKey) {
  let on = true;
  try { on = localStorage.getItem(storeKey) !== "off"; } catch (_) { /* on */ }
  return {
    get on() { return on; },
    set(value) {
      on = Boolean(value);
      try { localStorage.setItem(storeKey, on ? "on" : "off"); } catch (_) { /* this visit only */ }
    },
  };
}

// The single-character shortcuts (R, T, N, P, D, ?) can be turned off in the key list (WCAG
// 2.1.4): they may clash with a screen reader's or a voice tool's own keys.
const letterKeys = rememberedSwitch("swarmlab.letterKeys");
function setLetterKeys(on) {
  letterKeys.set(on);
  showLetterKeys();
}
/** The buttons' aria-keyshortcuts and the key hints by each stage name the letter keys only
 *  while they are on. */
export function showLetterKeys(root = document) {
  for (const b of root.querySelectorAll("[data-letter-key]")) {
    if (letterKeys.on) b.setAttribute("aria-keyshortcuts", b.dataset.letterKey);
    else b.removeAttribute("aria-keyshortcuts");
  }
  for (const p of root.querySelectorAll(".access-hints[data-lab]")) p.innerHTML = keyHints(p.dataset.lab);
}

/** True if Space on this element already means something (press a button, follow a link…). */
function spaceTaken(target) {
  if (!target || !target.closest) return false;
  return Boolean(target.closest("button, a[href], summary, input, select, textarea, [role=tab], [role=button], [role=slider], [contenteditable]"));
}

/**
 * A list whose items are one Tab stop: arrow keys, Home and End move between them.
 * Survives the list being rebuilt (a MutationObserver re-applies the tabindex).
 */
export function roving(list, itemSelector) {
  if (!list || list.dataset.roving === "1") return;
  list.dataset.roving = "1";
  let current = 0;
  const items = () => [...list.querySelectorAll(itemSelector)];
  const apply = () => {
    const all = items();
    if (!all.length) return;
    current = Math.max(0, Math.min(current, all.length - 1));
    all.forEach((b, i) => { const v = i === current ? "0" : "-1"; if (b.getAttribute("tabindex") !== v) b.setAttribute("tabindex", v); });
  };
  list.addEventListener("focusin", (ev) => {
    const i = items().indexOf(ev.target.closest(itemSelector));
    if (i >= 0 && i !== current) { current = i; apply(); }
  });
  list.addEventListener("keydown", (ev) => {
    const all = items();
    const i = all.indexOf(ev.target.closest(itemSelector));
    if (i < 0) return;
    let j = null;
    if (ev.key === "ArrowDown" || ev.key === "ArrowRight") j = Math.min(all.length - 1, i + 1);
    else if (ev.key === "ArrowUp" || ev.key === "ArrowLeft") j = Math.max(0, i - 1);
    else if (ev.key === "Home") j = 0;
    else if (ev.key === "End") j = all.length - 1;
    if (j === null) return;
    ev.preventDefault();
    current = j;
    apply();
    all[j].focus();
  });
  new MutationObserver(apply).observe(list, { childList: true, subtree: true });
  apply();
}

/** The keyboard-help dialog (one for the page; its lab part follows the open lab). */
function helpDialog() {
  let dlg = document.getElementById("access-help");
  if (dlg) return dlg;
  dlg = document.createElement("dialog");
  dlg.id = "access-help";
  dlg.className = "access-help";
  dlg.setAttribute("aria-labelledby", "access-help-title");
  dlg.innerHTML = `
    <h2 id="access-help-title">Keyboard</h2>
    <p>These keys work anywhere in the lab except while a box, slider or checkbox has the focus.</p>
    <p><label class="access-letter-keys"><input type="checkbox"> Single-letter keys (<span class="access-letter-names"></span>)</label>
      <span class="help">Turn them off if they get in the way of your screen reader's or voice tool's own keys;
      the buttons do the same. This browser remembers the choice.</span></p>
    <p><label class="access-summaries"><input type="checkbox"> Spoken updates while a lab plays</label>
      <span class="help">A short summary when the picture changes (at most every 10 s, then less often); off, only
      Describe and your own actions are answered. This browser remembers the choice.</span></p>
    <table class="access-keys-global"><caption>In this lab</caption><tbody></tbody></table>
    <table class="access-keys-lab"><caption>On this lab's stage</caption><tbody></tbody></table>
    <p>Elsewhere: <kbd>Tab</kbd> moves between controls; <kbd>←</kbd> <kbd>→</kbd> move along the lab tabs
      (<kbd>Enter</kbd> or <kbd>Space</kbd> opens one) and change a focused slider<span class="access-keys-markers">; <kbd>↑</kbd> <kbd>↓</kbd> <kbd>Home</kbd> <kbd>End</kbd> move within the list of chart markers</span>.</p>
    <p><button type="button" class="btn primary access-help-close">Close</button></p>`;
  const body = dlg.querySelector(".access-keys-global tbody");
  for (const k of GLOBAL_KEYS) {
    const tr = document.createElement("tr");
    tr.dataset.key = k.key;
    const th = document.createElement("th");
    th.scope = "row";
    const kbd = document.createElement("kbd");
    kbd.textContent = k.show;
    th.append(kbd);
    const td = document.createElement("td");
    td.textContent = k.what;
    tr.append(th, td);
    body.append(tr);
  }
  dlg.querySelector(".access-help-close").addEventListener("click", () => dlg.close());
  const letters = dlg.querySelector(".access-letter-keys input");
  letters.addEventListener("change", () => setLetterKeys(letters.checked));
  document.body.append(dlg);
  return dlg;
}

/**
 * Wire the global shortcuts and the help dialog.
 * @param {object} o  activeLab(), controller(lab), describe(lab), and summaries: the spoken
 *                   updates' rememberedSwitch, switched in this dialog (optional)
 */
export function installKeys({ activeLab, controller, describe, summaries = null }) {
  let opener = null;

  function openHelp(lab, from = null) {
    const dlg = helpDialog();
    const cfg = LAB_ACCESS[lab] || {};
    const keys = labKeys(lab);
    const here = new Set(keys.map((k) => k.key));
    const words = cfg.keyWords || {};
    for (const tr of dlg.querySelectorAll(".access-keys-global tr")) {
      tr.hidden = !here.has(tr.dataset.key);
      tr.querySelector("td").textContent = words[tr.dataset.key] || GLOBAL_KEYS.find((k) => k.key === tr.dataset.key).what;
    }
    dlg.querySelector(".access-keys-markers").hidden = !cfg.roving; // (Lab 1's chart markers)
    const letters = keys.filter((k) => k.key.length === 1 && k.key !== " ").map((k) => k.show);
    dlg.querySelector(".access-letter-names").textContent =
      `${letters.slice(0, -1).join(", ")} and ${letters[letters.length - 1]}`;
    const body = dlg.querySelector(".access-keys-lab tbody");
    body.textContent = "";
    for (const [k, w] of cfg.stageKeys || []) {
      const tr = document.createElement("tr");
      tr.innerHTML = `<th scope="row"><kbd></kbd></th><td></td>`;
      tr.querySelector("kbd").textContent = k;
      tr.querySelector("td").textContent = w;
      body.append(tr);
    }
    dlg.querySelector(".access-keys-lab").hidden = !body.children.length;
    dlg.querySelector(".access-letter-keys input").checked = letterKeys.on;
    const spoken = dlg.querySelector(".access-summaries");
    spoken.hidden = !summaries;
    if (summaries) spoken.querySelector("input").checked = summaries.on;
    opener = from || document.activeElement;
    if (!dlg.open) dlg.showModal();
    // focus on its first control, so a small screen shows the dialog from its top
    dlg.querySelector(".access-letter-keys input").focus();
  }
  const dlg = helpDialog();
  if (summaries) {
    const box = dlg.querySelector(".access-summaries input");
    box.addEventListener("change", () => summaries.set(box.checked));
  }
  dlg.addEventListener("close", () => {
    if (opener && opener.isConnected && typeof opener.focus === "function") opener.focus({ preventScroll: true });
    opener = null;
  });

  for (const [lab, cfg] of Object.entries(LAB_ACCESS)) {
    for (const [listSel, itemSel] of cfg.roving || []) {
      const section = document.getElementById(`lab-${lab}`);
      const install = () => roving(section && section.querySelector(listSel), itemSel);
      if (section) new MutationObserver(install).observe(section, { childList: true, subtree: true });
    }
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (helpDialog().open) return; // the dialog handles its own keys (Escape closes it)
    const lab = activeLab();
    const cfg = LAB_ACCESS[lab];
    const section = document.getElementById(`lab-${lab}`);
    if (!cfg || !section || section.dataset.access !== "1") return;
    if (typing(ev.target) || ev.defaultPrevented) return;
    const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    const c = controller(lab);
    const act = (name) => {
      const fn = cfg.shortcuts && cfg.shortcuts[name];
      return fn ? fn(section, c) !== false : false;
    };
    let done = false;
    const letter = key.length === 1 && key !== " ";
    if (letter && (!letterKeys.on || letterTaken(ev.target))) return;
    if (key === "?") { openHelp(lab); done = true; }
    else if (key === "Escape") done = act("escape");
    else if (ev.repeat) return;
    else if (key === " ") { if (!spaceTaken(ev.target)) done = act("play"); }
    else if (key === "d") { describe(lab); done = true; }
    else if (LETTER_ACTIONS.has(key)) done = act(LETTER_ACTIONS.get(key)); // R, T, N, P
    if (done) ev.preventDefault();
  });

  return { openHelp };
}
