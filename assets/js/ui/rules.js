// "Rules in Python": the model's own rule function, shown, editable and run live.
//
// One panel per lab (Lab 3 steering, Lab 2 turn), mounted by the lab with
//   mountRules(host, {engine, lab, stepper, notify, embed, shareLink, clock, agents})
// where `clock` is the lab's model-time readout (the session's Readout "t": label, unit,
// decimals), so a message names a moment as the lab's readouts do, and `agents` what moves.
// The session holds the rule (sessions/base.py: rules_source / rules / rules_original and
// rules.py in the engine): the page only edits text and shows what comes back.  The panel's
// heading, introduction and "What the function gets" come with the source (RuleKind.panel).
//
// * The editor is the CodeMirror that PyScript already ships (core.js exports it as
//   `codemirror`); if it cannot load, a plain textarea with a note does the same job.
// * "Run my rules" sends the text; the session compiles it, tries it once on the current
//   state and swaps it in at the next step (time and state kept, a chart marker).  A syntax
//   error, an exception or a bad result (wrong shape, NaN or inf) comes back as a message
//   with the line, shown beside the editor; the model keeps its last good rule.
// * The measured engine time per step is shown (the step op's ms_per_step).
// * Too long: the Python time limit (rules.py, opcode-traced) stops `while True: pass`.  A
//   loop inside one numpy call cannot be interrupted, so while a student's rule runs in a
//   worker the engine watchdog (engine.watch) terminates the worker after watchMs (Python's
//   own limit, the session's time_limit_s, plus WATCH_MARGIN_S, so Python names the line first) and
//   starts a new one; this panel keeps a snapshot of the run from the last good second and
//   restores it, with the original rules, and says so.  The page never waits for Python.
// * Share links may carry the code in the fragment (#code=, deflate + base64url).  Opening
//   one shows the code and asks before running it; with embed=1 code from links is ignored,
//   and so it is where the engine runs on the page's main thread (the single file), since
//   code there could reach the page.

const WATCH_MARGIN_S = 1;    // the watchdog stops the worker this long after Python's own limit
const SNAPSHOT_MS = 1000;    // while a student's rule runs, the run is saved this often
const MAX_LINK_CODE = 6000;  // characters of fragment: longer code is not put in links

import { capital, ensureStylesheet, sentence } from "./dom.js";
import { copyLink, linkCode } from "./share.js";
import { formatReadout } from "./controls.js";
import { crashReason } from "./stepper.js";

/** The panel's status while a link's code waits for the student's answer. */
const ASKING = "The code in the editor came with the link and is not running yet; the original rules run until you choose above.";

/** Mount the panel into `host` (prepended). Resolves to its controller. */
export async function mountRules(host, opts) {
  const { engine, lab, stepper, notify = () => {}, embed = false, shareLink = null, clock, agents } = opts;
  const moment = (t) => `${clock.label} ${formatReadout(clock, t)}`;  // "update 40", "model time 3.0 s"
  ensureStylesheet("assets/css/rules.css");
  const src = await engine.call(lab, "rules_source");
  const watchMs = 1000 * (src.time_limit_s + WATCH_MARGIN_S); // a request longer than this stops the worker
  const root = document.createElement("section");
  root.className = "panel rules-panel";
  root.setAttribute("aria-labelledby", `${lab}-rules-h`);
  root.innerHTML = `
    <h2 id="${lab}-rules-h"></h2>
    <p class="rules-intro"></p>
    <div class="rules-ask" role="alertdialog" aria-labelledby="${lab}-rules-ask-t" hidden>
      <p id="${lab}-rules-ask-t"><strong>This link carries its own rules</strong>, now in the editor below.
      Read them first: they run only if you say so.</p>
      <div class="btn-row">
        <button type="button" class="btn primary rules-ask-run">Run these rules</button>
        <button type="button" class="btn rules-ask-no">Keep the original</button>
      </div>
    </div>
    <div class="rules-work">
      <div class="rules-editor-wrap">
        <div class="rules-editor" aria-label="The rule function, in Python"></div>
        <p class="rules-note" hidden></p>
      </div>
      <div class="rules-side">
        <div class="btn-row">
          <button type="button" class="btn primary rules-run">Run my rules</button>
          <button type="button" class="btn rules-orig">Back to the original</button>
          <button type="button" class="btn rules-code">Show the original code</button>
        </div>
        <p class="rules-status" role="status" aria-live="polite"></p>
        <p class="rules-speed"><span class="k">engine time per step</span> <span class="v rules-ms">–</span></p>
        ${shareLink ? `<button type="button" class="btn rules-link">Copy link with my rules</button>` : ""}
        <details class="rules-ideas">
          <summary>Ideas to try</summary>
          <ul class="rules-idea-list"></ul>
        </details>
        <details class="rules-help">
          <summary>What the function gets</summary>
          <p class="rules-help-text"></p>
        </details>
      </div>
    </div>`;
  host.prepend(root);
  const $ = (sel) => root.querySelector(sel);
  $(`#${lab}-rules-h`).textContent = src.title;
  $(".rules-intro").textContent = src.intro;
  $(".rules-help-text").textContent = src.help;
  // every other name the code can use, as the session lists them (RuleKind.helpers)
  $(".rules-help-text").append(` Ready to use without importing: ${src.helpers.join(", ")}.`);
  $(".rules-help-text").append(" In the editor, Enter keeps the indentation; indent with spaces. Tab moves on to the " +
    "next control, so the keyboard never gets stuck in the code. The arrays it gets are read-only (make a copy to " +
    "change one), and print() writes to the browser's console (its developer tools), not to this page.");

  const editor = await createEditor($(".rules-editor"), src.code, $(".rules-note"), () => showCodeButton());
  root.dataset.editor = editor.kind;
  let user = src.user;           // the session runs the student's rule
  let snapshot = null;           // the last good state, while a student's rule runs (worker only)
  let snapTimer = null;
  let msAvg = 0;

  function show(text, kind = "info", line = null) {
    const el = $(".rules-status");
    el.textContent = text;
    el.dataset.kind = kind;
    root.dataset.state = kind;
    if (line) editor.showLine(line);
  }
  // Buttons that cannot act now say so with aria-disabled, not `disabled`: a disabled button
  // drops the keyboard's focus to the page's start (after Enter on "Back to the original").
  const unavailable = (sel, on) => $(sel).setAttribute("aria-disabled", String(on));
  const available = (sel) => $(sel).getAttribute("aria-disabled") !== "true";
  function showUser(on) {
    user = on;
    root.dataset.user = on ? "1" : "0";
    unavailable(".rules-orig", !on);
    if (on) startGuard(); else stopGuard();
  }

  // ---- the last good state and the watchdog (a worker can be stopped; the main thread cannot)
  let snapping = null; // the snapshot request in flight: never more than one queued
  let nextSnap = 0;     // a big flock's snapshot is slow: keep it under a tenth of the engine's time
  function takeSnapshot() {
    if (!snapping) {
      const t0 = performance.now();
      snapping = engine.tryCall(lab, "snapshot")
        .then((r) => { if (r.ok) snapshot = r.value; nextSnap = performance.now() + 10 * (performance.now() - t0); })
        .catch(() => { /* stopped meanwhile: the restore uses the previous one */ })
        .finally(() => { snapping = null; });
    }
    return snapping;
  }
  function startGuard() {
    if (engine.mode !== "worker") return;
    engine.watch(watchMs, onStall, onStop, lab);
    if (!snapTimer) snapTimer = setInterval(() => { if (!engine.restarting && performance.now() >= nextSnap) takeSnapshot(); }, SNAPSHOT_MS);
  }
  function stopGuard() {
    engine.watch(null);
    clearInterval(snapTimer);
    snapTimer = null;
  }
  // what the watchdog knows: no answer in time, from a loop that runs too long or from code
  // that ended Python itself (os._exit: a worker cannot tell the page)
  const noAnswer = () => `Your rules gave no answer for ${watchMs / 1000} s (a loop that runs too long, or code that ended Python)`;
  function onStop() {
    root.dataset.stopped = String((root.dataset.stopped | 0) + 1);
    show(`${noAnswer()}: the engine was stopped. Starting it again from the last good second…`, "error");
  }
  // no replacement worker answered (offline?): the panel stops saying "starting it again"
  function onRestartFailed(msg) {
    show(`Your rules did not answer in time and the engine was stopped, but ${msg}.`, "error");
  }
  engine.restartFailListeners.add(onRestartFailed);
  async function onStall(eng) {
    stopGuard();
    user = false;
    const t = snapshot ? (snapshot.t ?? 0) : null;
    if (snapshot) await eng.batch(lab, [["restore", { snapshot }]], { urgent: true });
    showUser(false);
    show(`${noAnswer()}, so the engine was stopped and started again. ` +
      (t !== null ? `The run carries on from ${moment(t)} with the original rules; ` : "The original rules run again; ") +
      "your code is still in the editor.", "error");
    notify("The engine was restarted: a rule did not answer in time.", "warn");
    stepper.invalidate();
  }

  // ---- run, back to the original
  async function run(code) {
    if (!available(".rules-run")) return; // one run at a time
    show("Checking your rules…", "busy");
    unavailable(".rules-run", true);
    try {
      if (engine.mode === "worker") {
        await takeSnapshot();        // the state before the new rule: the restore point
        engine.watch(watchMs, onStall, onStop, lab);
      }
      let r;
      try {
        r = await stepper.track(engine.call(lab, "rules", { code }));
      } catch (err) {
        if (err && err.name === "EngineStalled") return; // onStall tells the student
        // the engine itself failed (a bug): said here, never a panel that waits for ever
        show(`The engine stopped while trying your rules: ${crashReason(err)}`, "error");
        return;
      }
      if (!r.ok) {
        if (!user) stopGuard();
        const e = r.error;
        // (the message names the line itself; what runs meanwhile is said after it)
        show(`${sentence(capital(e.message))} ${user ? "Your rules from before keep running." : "The original rules keep running."}`,
          "error", e.line);
        return;
      }
      showUser(true);
      msAvg = 0;
      show(`Your rules run from now on (the first try took ${r.ms.toFixed(1)} ms). The run kept its time and ${agents}; ` +
        "a line on the chart marks the change.", "ok");
      stepper.invalidate();
    } finally {
      unavailable(".rules-run", false);
    }
  }
  async function original() {
    await stepper.track(engine.call(lab, "rules_original"));
    showUser(false);
    msAvg = 0;
    show("The original rules run again (your code stays in the editor).", "info");
    stepper.invalidate();
  }
  // The editor's code, apart from which rules run: "Show the original code" puts the original function
  // in the editor (keeping the student's, which "Back to my code" puts back), for a student
  // whose edits went wrong.  It changes no rule: "Run my rules" runs what the editor shows.
  let mine = null;
  function showCodeButton() {
    const b = $(".rules-code");
    const differs = editor.getCode() !== src.original;
    if (differs && mine !== null && editor.getCode() !== mine) mine = null;  // (edited since: theirs now)
    b.textContent = !differs && mine !== null ? "Back to my code" : "Show the original code";
    unavailable(".rules-code", !differs && mine === null);
  }
  $(".rules-code").addEventListener("click", () => {
    if (!available(".rules-code")) return; // the original code is in the editor already
    if (editor.getCode() !== src.original) {
      mine = editor.getCode();
      editor.setCode(src.original);
      show("The original code is in the editor; “Back to my code” puts yours back. " +
        (user ? "Your rules still run until you press “Run my rules” or “Back to the original”." : ""), "info");
    } else {
      editor.setCode(mine);
      mine = null;
      show("Your code is back in the editor.", "info");
    }
    showCodeButton();
  });
  showCodeButton();
  $(".rules-run").addEventListener("click", () => run(editor.getCode()));
  $(".rules-orig").addEventListener("click", () => {
    if (!available(".rules-orig")) return; // the original rules run already
    original().catch((err) => show(String(err.message || err), "error"));
  });

  // ---- ideas to try (the engine's list: tested in tests/unit/test_rules.py)
  const list = $(".rules-idea-list");
  for (const idea of src.ideas || []) {
    const li = document.createElement("li");
    li.innerHTML = `<strong></strong> <span></span><br><button type="button" class="btn small rules-try">Try it</button>`;
    li.querySelector("strong").textContent = idea.title + ".";
    li.querySelector("span").textContent = idea.look;
    li.querySelector("button").setAttribute("aria-label", `Try it: ${idea.title}`);
    li.querySelector("button").addEventListener("click", () => {
      editor.setCode(idea.code);
      run(idea.code);
    });
    li.dataset.idea = idea.name;
    list.append(li);
  }
  if (!list.children.length) $(".rules-ideas").hidden = true;

  // ---- engine time per step, and a rule that failed during a step
  const listener = (l, reply) => {
    if (l !== lab || !reply.ops) return;
    reply.ops.forEach((op, k) => {
      const r = reply.results[k];
      if (op[0] !== "step" || !r || !r.value || !(op[1] && op[1].n > 0)) return;
      const v = r.value;
      if (typeof v.ms_per_step === "number") {
        msAvg = msAvg > 0 ? 0.8 * msAvg + 0.2 * v.ms_per_step : v.ms_per_step;
        $(".rules-ms").textContent = `${msAvg < 10 ? msAvg.toFixed(2) : msAvg.toFixed(0)} ms (${user ? "your rules" : "original rules"})`;
        root.dataset.ms = String(msAvg);
      }
      if (v.rules && v.rules.error) {
        const e = v.rules.error;
        showUser(false);
        show(`Your rules stopped at ${moment(v.t)}: ${e.message}. ` +
          "The original rules took over from that step.", "error", e.line);
      }
    });
  };
  engine.listeners.add(listener);

  // ---- share links with code
  if (shareLink) {
    $(".rules-link").addEventListener("click", () => {
      const code = editor.getCode();
      const base = stepper.whenSettled(shareLink); // (after a setting on its way)
      // packing is asynchronous: copyLink gets the link as a promise and asks for the clipboard
      // at once, within the click (WebKit refuses a copy made after an await)
      // what the copy says follows what the link carries (one note beside the button: the copy's)
      let said = code === src.original ? undefined
        : "Link copied. Whoever opens it sees your code first and decides whether to run it.";
      const url = code === src.original ? base : Promise.all([base, packCode(code)]).then(([link, packed]) => {
        if (engine.mode !== "worker") {  // (codeFromLink: here a link's code is not opened)
          said = "Link copied with the settings only: where Python runs on the page itself, as in the single file, " +
            "links do not carry code. To keep your rules, copy them from the editor.";
          return link;
        }
        if (packed.length <= MAX_LINK_CODE) return `${link}#code=${packed}`;
        said = "Link copied with the settings only: your code is too long to fit in a link.";
        return link;
      });
      copyLink(url, $(".rules-link"), said && (() => said));
    });
  }
  // ---- code from a link (#code=...): shown, and run only if the student says so
  const asked = () => { $(".rules-ask").hidden = true; delete root.dataset.asking; $(".rules-run").focus(); };
  $(".rules-ask-run").addEventListener("click", () => { asked(); run(editor.getCode()); });
  $(".rules-ask-no").addEventListener("click", () => {
    asked();
    editor.setCode(src.original);
    show("The code from the link was put aside; the original rules run.", "info");
  });
  async function codeFromLink() {
    const fromLink = linkCode();
    if (!fromLink) return;
    if (embed) {
      notify("This embedded page does not take code from links; it runs the original rules.", "info");
    } else if (engine.mode !== "worker") {
      // here Python runs on the page itself (the single file), where code could reach the page
      notify("Code from links runs only where the engine has its own worker; here the original rules run.", "info");
    } else {
      try {
        const code = await unpackCode(fromLink);
        editor.setCode(code);
        $(".rules-ask").hidden = false;
        root.dataset.asking = "1";
        show(ASKING, "info");
        // the question sits by the editor, screens below the stage: say at the top that it waits
        notify(`This link carries its own rules. They run only if you say so: read them in “${src.title}” ` +
          "below the stage; until then the original rules run.", "info");
      } catch (err) {
        notify("The code in this link could not be read; the original rules run.", "warn");
      }
    }
  }
  await codeFromLink();
  // A link pasted into a tab that already shows its address changes only the #code= part, which
  // reloads nothing: the lab shown (this one, when its section is) reads it then.
  const onHash = () => { if (!host.closest("section.lab")?.hidden) codeFromLink(); };
  window.addEventListener("hashchange", onHash);

  showUser(user);
  show(root.dataset.asking ? ASKING
    : user ? "Your rules are running." : "These are the rules the model runs now. Change them and press “Run my rules”.", "info");
  return {
    root,
    editor,
    run: () => run(editor.getCode()),
    original,
    get user() { return user; },
    dispose() {
      stopGuard();
      engine.listeners.delete(listener);
      engine.restartFailListeners.delete(onRestartFailed);
      window.removeEventListener("hashchange", onHash);
    },
  };
}

// ------------------------------------------------------------------------------ the editor

let editorModules = null;

/** Start loading the editor's modules (PyScript's CodeMirror chunks) now, so that mountRules
 *  finds them loaded: a lab calls it as it starts mounting, and the download and parsing
 *  overlap the lab's first requests instead of delaying its first frame.  A failed load is
 *  forgotten, so the next call tries again.  Resolves to [core, python, state]. */
export function preloadEditor() {
  if (!editorModules) {
    editorModules = import("../../vendor/pyscript/core.js")
      .then(({ codemirror }) => Promise.all([codemirror.core, codemirror.python, codemirror.state]));
    editorModules.catch(() => { editorModules = null; });
  }
  return editorModules;
}

/**
 * CodeMirror 6 from PyScript's own bundle (python highlighting, line numbers, undo), or a
 * textarea when it cannot load or cannot be styled.  {kind, getCode(), setCode(text), showLine(n)}
 */
async function createEditor(host, code, note, onChange = () => {}) {
  let why = "the code editor with colours could not be loaded (if the connection dropped, reload once you are online)";
  try {
    const [core, lang, state] = await preloadEditor();
    const view = new core.EditorView({
      parent: host,
      state: state.EditorState.create({
        doc: code,
        // long lines wrap (a phone shows the whole line, the page never scrolls sideways)
        extensions: [core.basicSetup, lang.python(), core.EditorView.lineWrapping,
          core.EditorView.contentAttributes.of({ "aria-label": "Rule function, Python", spellcheck: "false" }),
          core.EditorView.updateListener.of((u) => { if (u.docChanged) onChange(); })],
      }),
    });
    // CodeMirror adds its own styles in a <style> element, which a Content-Security-Policy
    // without 'unsafe-inline' in style-src refuses: line numbers above the code, indentation
    // lost.  Its base theme lays the scroller out as a flex row; without it, the text box.
    if (getComputedStyle(view.scrollDOM).display !== "flex") {
      view.destroy();
      why = "this site's Content-Security-Policy does not allow the code editor's styles (style-src 'unsafe-inline')";
      throw new Error(why);
    }
    return {
      kind: "codemirror",
      view,
      getCode: () => view.state.doc.toString(),
      setCode: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
      showLine(n) {
        const doc = view.state.doc;
        if (n < 1 || n > doc.lines) return;
        const line = doc.line(n);
        view.dispatch({ selection: { anchor: line.from, head: line.to }, scrollIntoView: true });
      },
    };
  } catch (err) {
    console.warn("[swarmlab] the code editor could not load; using a plain text box", err);
    const ta = document.createElement("textarea");
    ta.className = "rules-textarea";
    ta.spellcheck = false;
    ta.value = code;
    ta.rows = Math.min(32, code.split("\n").length + 1);
    ta.setAttribute("aria-label", "Rule function, Python");
    ta.addEventListener("input", onChange);
    host.append(ta);
    note.hidden = false;
    note.textContent = `A plain text box: ${why}. Indent with spaces.`;
    return {
      kind: "textarea",
      getCode: () => ta.value,
      setCode: (text) => { ta.value = text; onChange(); },
      showLine(n) {
        const lines = ta.value.split("\n");
        if (n < 1 || n > lines.length) return;
        const start = lines.slice(0, n - 1).reduce((s, l) => s + l.length + 1, 0);
        ta.focus();
        ta.setSelectionRange(start, start + lines[n - 1].length);
      },
    };
  }
}

// ------------------------------------------------------------------------------ link packing

/** Code -> deflate-raw -> base64url (URL-fragment safe). */
export async function packCode(code) {
  const bytes = new TextEncoder().encode(code);
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const packed = new Uint8Array(await new Response(stream).arrayBuffer());
  let bin = "";
  for (const b of packed) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// A link's code, unpacked, is refused beyond this (far above any rule the engine accepts).
const LINK_CODE_MAX_BYTES = 100000;

/** The inverse of packCode (throws on anything malformed).  A fragment longer than packCode
 *  ever writes (MAX_LINK_CODE) is refused before anything is inflated: deflate expands up to
 *  about 1,000 times, and browsers inflate a whole input chunk at once, so a 1.4 MB link took
 *  the heap past 1.4 GB.  Within that length at most a few megabytes come out, and reading
 *  stops as soon as the code passes LINK_CODE_MAX_BYTES. */
export async function unpackCode(text) {
  if (text.length > MAX_LINK_CODE) throw new Error("too long");
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const out = new Uint8Array(LINK_CODE_MAX_BYTES);
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > LINK_CODE_MAX_BYTES) {
      reader.cancel().catch(() => {});
      throw new Error("too long");
    }
    out.set(value, size);
    size += value.byteLength;
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(out.subarray(0, size));
}
