/* Swarm Lab boot supervisor (a classic script, so it runs even where modules cannot).
 *
 * It owns the loading overlay and the error panel, and it is the only place that
 * decides the page has failed to start.  Everything it learns comes from:
 *   - a fetch wrapper that measures bytes of the runtime files as they arrive
 *     (real progress) and notices failed downloads of our own files;
 *   - window "error" / "unhandledrejection" events and PyScript's error output;
 *   - calls from Python (app/main.py): SwarmBoot.stage(), .fail(), .ready().
 *
 * The page never goes blank: any failure shows what failed and what to try.
 */
(function () {
  "use strict";

  // Approximate sizes (bytes) of what each stage downloads; real Content-Length wins.
  const FILES = {
    // (the compiled runtime's sizes, tools/compile_runtime.py; the official files are close)
    "pyodide.asm.wasm": { stage: "runtime", size: 10105545 },
    "python_stdlib.zip": { stage: "runtime", size: 2245333 },
    "pyodide-lock.json": { stage: "runtime", size: 446 },
    "pyodide.asm.js": { stage: "runtime", size: 1255688 },
    "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl": { stage: "numpy", size: 2573156 },
  };
  const STAGES = [
    { id: "runtime", label: "Python runtime" },
    { id: "numpy", label: "numpy" },
    { id: "engine", label: "Swarm Lab engine" },
  ];
  // Timings in ms, as data.  A page (a slow kiosk, a test) may set window.SWARMLAB_BOOT_TIMING
  // = {stall, quiet, firstAnswer} before this script runs; only positive numbers are taken.
  //   stall        a download that brings no bytes for this long is reported, with what to try;
  //   quiet        once everything has arrived and Python has said nothing for this long, the
  //                message becomes "Still starting Python… (N s)" (never a failure);
  //   firstAnswer  once the engine's worker has run app/main.py, its first answer may take
  //                this long (engine.js); silence means the script failed, and that is said.
  const TIMING = { stall: 45000, quiet: 8000, firstAnswer: 30000 };
  const given = window.SWARMLAB_BOOT_TIMING;
  if (given && typeof given === "object") {
    for (const k of Object.keys(TIMING)) if (Number(given[k]) > 0) TIMING[k] = Number(given[k]);
  }
  const STALL_MS = TIMING.stall;
  // What the status line says at each stage: plain words, never the runtime's internal step
  // names ("Loaded Storage", "Loading packages").
  const SAY = {
    numpy: "Downloading numpy…",
    start: "Starting Python…",
    unpackEngine: "Unpacking the Swarm Lab engine…",
    setupNumpy: "Setting up numpy…",
    engine: "Starting the Swarm Lab engine…",
  };
  // A file of the app that arrived but is not what it should be (cut short, altered): no
  // network problem, so the hint is to fetch a fresh copy of the app.
  const DAMAGED = /CompileError|WebAssembly\.(?:instantiate|compile|Module)|wasm validation|section (?:was )?(?:shorter|longer)|fell off|unexpected end|invalid magic|sha256|integrity|checksum|BadZipFile|not a zip file/i;

  const state = {
    stage: "runtime",
    loaded: {},
    total: {},
    requested: {}, // runtime files asked for (by the preloads' takeover, or by the runtime itself)
    finished: {}, // runtime files whose last byte has arrived
    failed: false,
    done: false,
    errors: [],
    lastProgress: Date.now(),
    pending: 0, // runtime downloads still under way (the watchdog only counts a stall then)
    readyCallbacks: [],
    started: (typeof performance !== "undefined" ? performance.now() : 0),
  };
  const $ = (id) => document.getElementById(id);
  // Opened as a plain file (not the single-file build): modules and fetch are blocked,
  // so every other failure is a consequence of this one; explain this one only.
  const FILE_MODE = location.protocol === "file:" && !window.SWARMLAB_SINGLE_FILE;
  const FILE_WHAT = "this page was opened as a file";

  function fileKey(url) {
    try {
      const name = String(url).split("?")[0].split("#")[0].split("/").pop();
      return Object.prototype.hasOwnProperty.call(FILES, name) ? name : null;
    } catch (e) {
      return null;
    }
  }

  function render() {
    const overlay = $("boot-overlay");
    if (!overlay || state.done || state.failed) return;
    let loaded = 0, total = 0;
    for (const name in FILES) {
      total += state.total[name] || FILES[name].size;
      loaded += Math.min(state.loaded[name] || 0, state.total[name] || FILES[name].size);
    }
    // Downloads are ~85% of the wait; the rest is compiling and importing.
    let frac = 0.85 * (loaded / total);
    const idx = STAGES.findIndex((s) => s.id === state.stage);
    if (state.stage === "engine") frac = Math.max(frac, 0.92);
    const bar = $("boot-progress");
    if (bar) {
      bar.value = Math.round(frac * 100);
      bar.setAttribute("aria-valuetext", `${Math.round(frac * 100)}%`);
    }
    const list = $("boot-stages");
    if (list) {
      STAGES.forEach((s, i) => {
        const li = list.querySelector(`[data-stage="${s.id}"]`);
        if (!li) return;
        li.classList.toggle("done", i < idx);
        li.classList.toggle("active", i === idx);
        let extra = "";
        if (s.id !== "engine") {
          let l = 0, t = 0;
          for (const name in FILES) {
            if (FILES[name].stage !== s.id) continue;
            t += state.total[name] || FILES[name].size;
            l += state.loaded[name] || 0;
          }
          extra = ` · ${(l / 1e6).toFixed(1)} of ${(t / 1e6).toFixed(1)} MB`;
        }
        const span = li.querySelector(".detail");
        if (span) span.textContent = i < idx ? " · done" : extra;
      });
    }
  }

  /** The boot's status line: `text` on screen; `spoken` (the same words without a running
   *  count) in the polite live region #boot-say, written only when it changes, so a screen
   *  reader hears each stage once instead of every tick of a counter. */
  function show(text, spoken = text) {
    const msg = $("boot-message");
    if (msg) msg.textContent = text;
    const say = $("boot-say");
    if (say && say.textContent !== spoken) say.textContent = spoken;
  }

  function stage(id, detail) {
    if (state.failed || state.done) return;
    state.stage = id;
    state.lastProgress = Date.now();
    if (detail) show(detail);
    render();
  }

  /** The page behind the overlays is inert while one covers it (index.html marks which parts);
   *  once the lab is ready it is usable. */
  function pageUsable() {
    for (const el of document.querySelectorAll("body > [inert]")) el.inert = false;
  }

  // A soft failure (a stall) may still end well: a late ready() replaces it.
  function fail(what, detail, hint, { soft = false } = {}) {
    if (FILE_MODE && what !== FILE_WHAT) return;
    if (state.failed || state.done) {
      if (state.done) console.error("[swarmlab]", what, detail);
      return;
    }
    if (!soft && !/damaged|incomplete/.test(what) && DAMAGED.test(`${detail || ""}\n${state.errors.join("\n")}`)) {
      what = `this copy of Swarm Lab is damaged (${what})`;
      hint = "A file of the app arrived cut short or altered, so it cannot run. Download the app again " +
        "(reload with Ctrl+Shift+R, or fetch a fresh swarm-lab.html); if you host it, re-deploy the whole folder " +
        "(`make dist`). Your connection is not the problem.";
    }
    state.failed = true;
    state.soft = soft;
    state.failedWhat = what;
    const overlay = $("boot-overlay");
    if (overlay) overlay.hidden = true;
    const panel = $("boot-error");
    if (!panel) {
      document.body.textContent = `Swarm Lab could not start: ${what}. ${detail || ""}`;
      return;
    }
    $("boot-error-what").textContent = what;
    $("boot-error-hint").textContent = hint || defaultHint();
    const pre = $("boot-error-detail");
    const details = [detail].concat(state.errors).filter(Boolean).join("\n\n");
    pre.textContent = details || "(no further detail)";
    panel.hidden = false;
    // the panel covers the page: the keyboard starts on its Reload button, not behind it, and
    // the panel scrolls to show it (at 400 % zoom the card is taller than the window).  In a
    // frame, only if the keyboard is already in it: a course page's reader may be typing
    // elsewhere on the page (the next keys would press Reload), and nothing may scroll it.
    const retry = $("boot-error-retry");
    const framed = window.top !== window;
    if (retry && (!framed || document.hasFocus())) retry.focus(framed ? { preventScroll: true } : undefined);
    document.documentElement.classList.add("boot-failed");
    try { window.dispatchEvent(new CustomEvent("swarmlab:boot-failed", { detail: { what, detail } })); } catch (e) { /* old browser */ }
  }

  function defaultHint() {
    return "Reload the page. If it fails again, try a current Chrome, Edge, Firefox or Safari; " +
      "if you run your own copy, run `make run` again (it re-checks the downloaded runtime).";
  }

  function ready() {
    if (state.failed && !state.soft) return;
    let refocus = false;
    if (state.failed) { // the stall is over after all
      state.failed = false;
      const panel = $("boot-error");
      refocus = Boolean(panel && panel.contains(document.activeElement)); // (its Reload had the keyboard)
      if (panel) panel.hidden = true;
      document.documentElement.classList.remove("boot-failed");
    }
    state.done = true;
    const overlay = $("boot-overlay");
    if (overlay) overlay.hidden = true;
    pageUsable();
    // notices written while the page was inert (a link's unknown lab, say) were not spoken: put
    // them in again, so that the polite region reads them now
    const notices = $("notices");
    if (notices && notices.children.length) notices.append(...notices.children);
    const labs = $("labs");
    if (refocus && labs) labs.focus({ preventScroll: true }); // not lost with the hidden panel
    document.documentElement.classList.add("booted");
    const ms = (typeof performance !== "undefined" ? performance.now() : 0) - state.started;
    window.SwarmBoot.bootMs = ms;
    const cbs = state.readyCallbacks.splice(0);
    cbs.forEach((cb) => { try { cb(); } catch (e) { console.error(e); } });
  }

  function whenReady() {
    return new Promise((resolve, reject) => {
      if (state.done) return resolve();
      state.readyCallbacks.push(resolve);
      window.addEventListener("swarmlab:boot-failed", () => reject(new Error("boot failed")), { once: true });
    });
  }

  // --- fetch wrapper: progress for runtime files, clear failures for our own files ---
  const realFetch = window.fetch ? window.fetch.bind(window) : null;
  function sameOrigin(url) {
    try { return new URL(url, location.href).origin === location.origin; } catch (e) { return false; }
  }
  if (realFetch) {
    window.fetch = async function (input, init) {
      const url = typeof input === "string" ? input : (input && input.url) || String(input);
      const key = fileKey(url);
      // A runtime download counts as pending from its request on (a connection that never
      // answers is a stall too) until its last byte or its failure.
      const counting = Boolean(key) && !state.done;
      if (counting) { state.pending++; state.requested[key] = true; }
      let settled = false;
      const settle = () => { if (counting && !settled) { settled = true; state.pending--; } };
      let response;
      try {
        response = await realFetch(input, init);
      } catch (err) {
        settle();
        if (!state.done && (key || sameOrigin(url))) {
          fail(`could not download ${shortName(url)}`, String(err && err.message || err),
            "Check your connection to the site that serves Swarm Lab and reload.");
        }
        throw err;
      }
      if (!response.ok) settle();
      const ours = !state.done && (key || sameOrigin(url));
      const missing = response.status === 404 || response.status === 410;
      if (!response.ok && ours && missing) {
        // The server answered, so the connection is fine: the file is not on the site.
        const engineFile = /\.py$|engine\.zip$/.test(url.split("?")[0]);
        fail(`this copy of Swarm Lab is incomplete: ${shortName(url)} is missing (HTTP ${response.status})`,
          `${url} answered ${response.status} ${response.statusText}`,
          (engineFile ? "The Swarm Lab engine files are missing on this site. " : "A file of the app is missing on this site. ") +
          "If you host Swarm Lab, copy the whole built folder again (`make dist`, or `make run` locally); otherwise tell your teacher.");
        return response;
      }
      if (!response.ok && ours) {
        fail(`could not download ${shortName(url)} (HTTP ${response.status})`,
          `${url} answered ${response.status} ${response.statusText}`,
          "The site that serves Swarm Lab answered with an error. Reload in a minute; if it repeats, tell whoever hosts it.");
        return response;
      }
      if (!key || !response.body || state.done) { settle(); return response; }
      // Content-Length counts compressed bytes when the host gzips; the stream yields them unpacked.
      const packed = (response.headers.get("Content-Encoding") || "identity") !== "identity";
      const len = (!packed && Number(response.headers.get("Content-Length"))) || FILES[key].size;
      state.total[key] = len;
      state.loaded[key] = 0;
      const reader = response.body.getReader();
      const counted = new ReadableStream({
        async pull(controller) {
          let chunk;
          try {
            chunk = await reader.read();
          } catch (err) {
            settle();
            // the connection dropped part-way: the engine's worker asks for the same file and
            // fails too, where the page cannot see it, so this is where the reader learns of it
            // (soft: should the worker's own request get through after all, the lab appears)
            if (!state.done) {
              fail(`could not download ${shortName(url)}: the connection dropped`,
                `${url}: ${String((err && err.message) || err)} after ${state.loaded[key]} of ${len} bytes`,
                "The connection dropped while the Python runtime was downloading. Check your connection, then reload the page.",
                { soft: true });
            }
            throw err;
          }
          const { done, value } = chunk;
          if (done) {
            settle();
            state.finished[key] = true;
            controller.close();
            downloaded();
            return;
          }
          state.loaded[key] += value.byteLength;
          state.lastProgress = Date.now();
          render();
          controller.enqueue(value);
        },
        cancel(reason) { settle(); return reader.cancel(reason); },
      });
      return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
  }

  // After each finished download: say what the wait is now for.
  function downloaded() {
    if (state.failed || state.done || state.stage === "engine") return;
    // (only files that were asked for: the single file loads pyodide.asm.js without fetch)
    const left = (id) => Object.keys(FILES).some((n) => FILES[n].stage === id && state.requested[n] && !state.finished[n]);
    if (state.pending === 0 && !left("runtime") && !left("numpy")) stage("numpy", SAY.start);
    else if (!left("runtime")) stage("numpy", SAY.numpy);
  }

  function shortName(url) {
    return String(url).split("?")[0].split("/").pop() || String(url);
  }

  // --- errors from anywhere during boot ---
  function record(msg) {
    if (!msg) return;
    state.errors.push(String(msg).slice(0, 2000));
  }
  window.addEventListener("error", (ev) => {
    if (state.done) return;
    record(ev.message || (ev.error && ev.error.stack));
    // A module or script element that failed to load fires a non-bubbling error; catch it here.
    const t = ev.target;
    // (A preloaded file that fails is reported by the fetch wrapper, with the HTTP status.)
    const preload = t && t.tagName === "LINK" && /\bpreload\b/i.test(t.rel || "");
    // a stylesheet that fails leaves a plainer page that still works (ui/dom.js says so), and an
    // image (the header's logo, blocked by a filter) takes nothing away: only scripts count
    const style = t && t.tagName === "LINK" && /\bstylesheet\b/i.test(t.rel || "");
    const image = t && (t.tagName === "IMG" || t.tagName === "IMAGE" || (t.tagName === "LINK" && /\bicon\b/i.test(t.rel || "")));
    if (t && t !== window && (t.src || t.href) && !preload && !style && !image) {
      fail(`could not load ${shortName(t.src || t.href)}`, t.src || t.href,
        "A file of the app is missing or blocked, or the connection dropped. Reload; if it happens again and you " +
        "host Swarm Lab, re-deploy the whole folder.");
    }
  }, true);
  window.addEventListener("unhandledrejection", (ev) => {
    if (state.done) return;
    const r = ev.reason;
    record((r && (r.stack || r.message)) || String(r));
    fail("the Python runtime did not start", (r && r.message) || String(r));
  });
  // A Content-Security-Policy that forbids what the runtime needs: say so at once.
  const CSP_WHAT = "this site's Content-Security-Policy blocks the Python runtime";
  document.addEventListener("securitypolicyviolation", (ev) => {
    const d = ev.effectiveDirective || ev.violatedDirective || "";
    // Trusted Types also refuse Function(), so the engine's CSP check may already have
    // reported "needs 'unsafe-eval'", which is the wrong advice: this names the real cause.
    if (/^(require-trusted-types-for|trusted-types)/.test(d) && !state.done && state.failedWhat === CSP_WHAT) {
      state.failed = false;
    }
    if (state.done || state.failed) return;
    if (/^(require-trusted-types-for|trusted-types)/.test(d)) {
      fail("this site's Content-Security-Policy (Trusted Types) blocks the Python runtime",
        `${d} blocked ${ev.blockedURI || "a script sink"}${ev.sample ? ": " + String(ev.sample).slice(0, 120) : ""}` +
        `${ev.sourceFile ? " in " + ev.sourceFile : ""}`,
        "The site hosting Swarm Lab sends a Trusted Types policy (require-trusted-types-for 'script'), which the " +
        "Python runtime (PyScript) does not support. Ask its administrator to leave that directive out for Swarm Lab's " +
        "pages (see the README, Content-Security-Policy), or use the single-file version.");
      return;
    }
    if (!/^(script-src|default-src|connect-src)/.test(d)) return;
    if (/^blob/.test(ev.blockedURI || "")) return; // a blocked worker: the engine falls back to the main thread
    const what = ev.blockedURI === "wasm-eval" ? "WebAssembly (needs 'wasm-unsafe-eval')"
      : ev.blockedURI === "eval" ? "Function()/eval (PyScript needs 'unsafe-eval')" : ev.blockedURI;
    fail(CSP_WHAT,
      `${d} blocked ${what}${ev.sourceFile ? " in " + ev.sourceFile : ""}`,
      "The site hosting Swarm Lab must allow 'wasm-unsafe-eval' and 'unsafe-eval' in script-src (see the README, Content-Security-Policy). Tell its administrator, or use the single-file version.");
  });
  // PyScript reports Python errors through console.error during boot.
  const realError = console.error.bind(console);
  console.error = function (...args) {
    if (!state.done && !state.failed) {
      const text = args.map((a) => (a && a.stack) || String(a)).join(" ");
      record(text);
      if (/Traceback|PythonError|Error:|PY\d{4}/.test(text)) {
        fail("Python raised an error while starting", text);
      }
    }
    realError(...args);
  };
  // PyScript's progress events name its internal steps ("Loading Pyodide", "Loaded Storage",
  // "Loading packages"); the page turns them into the stage a reader understands.
  window.addEventListener("py:progress", (ev) => {
    const d = String(ev.detail || "");
    state.lastProgress = Date.now();
    if (/numpy|packages/i.test(d)) stage("numpy", SAY.setupNumpy);
    else if (/^Loading Pyodide/i.test(d)) stage(state.stage, state.pending > 0 ? null : SAY.start);
    else if (/Loaded Pyodide/i.test(d)) stage("engine", SAY.engine);
    else if (/^Loading files/i.test(d)) stage(state.stage, SAY.unpackEngine);
    // ("Storage" is PyScript opening its own storage: nothing a reader waits for.)
  });

  // --- watchdog: a stalled download says so instead of spinning forever ---
  // Only downloads can stall.  Once everything has arrived, a slow device may need a long
  // time to start Python (WebKit with its JIT off: over a minute); that is shown as
  // "still starting", with the time so far, and never counted as a failure.
  setInterval(() => {
    if (state.done || state.failed) return;
    const quiet = Date.now() - state.lastProgress;
    if (state.pending > 0 && quiet > STALL_MS) {
      fail("loading stalled", `No data arrived for ${Math.round(STALL_MS / 1000)} s while downloading the ${state.stage}.`,
        "Your connection may be slow or interrupted. The page keeps waiting: if the download resumes, the lab " +
        "appears by itself. Otherwise reload; if this repeats, try another network or browser.",
        { soft: true });
    } else if (state.pending === 0 && quiet > TIMING.quiet) {
      const s = Math.round(((typeof performance !== "undefined" ? performance.now() : 0) - state.started) / 1000);
      show(`Still starting Python… (${s} s so far; a slow device can take a minute or more)`,
        "Still starting Python… a slow device can take a minute or more.");
      state.still = true;
    } else if (state.pending > 0 && state.still) {
      // downloads began after that (a slow link delivers the page's own scripts slowly first):
      // the wait is for them now, and the list below counts their megabytes
      show("Downloading the Python runtime and numpy (a slow connection can take minutes)…");
      state.still = false;
    }
  }, Math.min(2000, Math.max(250, TIMING.quiet / 2)));

  // --- prefetch: every big download at once, in parallel, through the wrapper ---
  // The engine runs in a worker, whose own fetches this page cannot see.  index.html's
  // <link rel="preload" as="fetch"> tags start the runtime files (and, in the built site, the
  // engine archive) while the page is still being read; fetching the same URLs here takes
  // those responses over (no second download), shows real progress, and leaves them in the
  // HTTP cache that the worker reads.  Files of FILES that no tag names are fetched too.
  function prefetch(interpreterURL) {
    const base = new URL(String(interpreterURL).replace(/[^/]*$/, ""), document.baseURI).href;
    const urls = new Set();
    for (const link of document.querySelectorAll('link[rel="preload"][as="fetch"]')) urls.add(link.href);
    for (const name in FILES) urls.add(new URL(name, base).href);
    const bodies = {};
    for (const url of urls) {
      const got = window.fetch(url).then((r) => (r.ok ? r.arrayBuffer() : null)).catch(() => null);
      const key = fileKey(url);
      if (key) bodies[key] = got;
    }
    verify(base, bodies).catch((err) => console.warn("[swarmlab] could not check the runtime files:", err));
  }

  // --- integrity: each runtime file against the manifest that vendoring wrote ---
  // (assets/vendor/VENDORED.json: "pyodide/<name>" -> sha256).  A file cut short or altered
  // would make Python fail inside the engine's worker, where the page cannot see the error;
  // checked here, the reader learns at once that this copy is damaged.  The digests run off
  // the page's main thread (WebCrypto) while the worker starts, so they delay nothing.
  // Without a manifest (an unusual host layout) nothing is checked.  Only the binary files are
  // checked: a host that minifies JavaScript or JSON on the fly changes their bytes harmlessly.
  async function verify(base, bodies) {
    if (!realFetch || !(window.crypto && crypto.subtle)) return;
    // A page that the offline copy serves has its files from that copy, whose service worker
    // checked each one's sha256 when it stored them (sw.js): no need to hash 15 MB again.
    if (navigator.serviceWorker && navigator.serviceWorker.controller) return;
    const folder = base.replace(/\/$/, "").split("/").pop(); // "pyodide"
    let manifest;
    try {
      const r = await realFetch(new URL("../VENDORED.json", base).href);
      manifest = r.ok ? await r.json() : null;
    } catch (e) {
      manifest = null;
    }
    const want = manifest && manifest.files;
    if (!want) return;
    for (const name of Object.keys(bodies).filter((n) => /\.(wasm|zip|whl)$/.test(n))) {
      const expected = want[`${folder}/${name}`];
      const body = await bodies[name];
      if (!expected || !body || state.done || state.failed) continue;
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
      const got = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
      if (got !== expected) {
        fail(`this copy of Swarm Lab is damaged: ${name} is not the file it should be`,
          `${name}: ${body.byteLength} bytes with sha256 ${got}; assets/vendor/VENDORED.json expects ${expected}.`,
          "A file of the app arrived cut short or altered, so Python cannot start. Download the app again " +
          "(reload with Ctrl+Shift+R); if you host Swarm Lab, copy the whole built folder again (`make dist`). " +
          "Your connection is not the problem.");
        return;
      }
    }
  }

  // --- file:// without the single-file build: explain instead of failing cryptically ---
  function checkFileProtocol() {
    if (FILE_MODE) {
      fail(FILE_WHAT,
        `Browsers do not let a page opened from a folder (${location.pathname.split("/").pop() || "index.html"}) load the Python runtime it needs.`,
        "Open the single-file version instead (swarm-lab.html, which runs with a double-click and no network: " +
        "ask whoever gave you this folder for it, or build it with `make offline` from the source), or open the lab's " +
        "web address; a folder like this one runs only when a web server serves it (the source's `make run`).");
      return true;
    }
    return false;
  }

  // --- storage: PyScript keeps its package cache in IndexedDB and cannot start without it ---
  // A browser that blocks storage for pages embedded from another site (third-party storage
  // off: Chrome's incognito default, Brave, or a setting) stops the runtime with an error that
  // names nothing useful; this names the cause and offers the lab in its own tab.
  const STORAGE_WHAT = "this browser does not let the embedded lab store data, which its Python runtime needs";
  const SANDBOX_WHAT = "the course page runs the embedded lab in a sandboxed frame (sandbox without allow-same-origin), " +
    "where it cannot store data, which its Python runtime needs";
  function storageBlocked(err) {
    if (document.readyState === "loading") { // the error panel is not parsed yet
      document.addEventListener("DOMContentLoaded", () => storageBlocked(err), { once: true });
      return;
    }
    if (state.done || FILE_MODE) return;
    if (state.failed) state.failed = false; // the runtime's own failure follows from this one
    const embedded = window.top !== window;
    // A frame the course page sandboxes without allow-same-origin has an opaque origin ("null"),
    // which no browser setting gives storage: the fix is the page's, not the reader's.
    const sandboxed = embedded && self.origin === "null";
    const own = new URL(location.href);
    own.searchParams.delete("embed");
    // soft: if the runtime starts after all (its worker may store data where the page may not,
    // or the probe's own database failed for another reason), ready() takes the panel away
    fail(sandboxed ? SANDBOX_WHAT : embedded ? STORAGE_WHAT : "this browser does not let the page store data, which its Python runtime needs",
      `indexedDB.open failed: ${(err && (err.name + ": " + err.message)) || err}`,
      sandboxed
        ? "The course page's author can add allow-same-origin (and allow-popups, for the link below) to the frame's " +
          "sandbox attribute, or link to the lab instead of embedding it. Otherwise open the lab in its own tab."
        : embedded
          ? "Open the lab in its own tab, where it may store data, or allow this site's data in the browser's " +
            "settings (third-party cookies and site data) and reload."
          : "Allow this site to store data (cookies and site data) in the browser's settings, or leave private browsing, then reload.",
      { soft: true });
    if (embedded) {
      const hint = $("boot-error-hint");
      const a = document.createElement("a");
      a.href = own.href;
      a.target = "_blank";
      a.rel = "noopener";
      a.className = "boot-open-own";
      a.textContent = "Open Swarm Lab in its own tab";
      if (hint) hint.append(" ", a);
      if (hint && sandboxed) hint.append(" (if the link does nothing, the frame does not allow new tabs either: copy this address into a new tab: ",
        Object.assign(document.createElement("code"), { textContent: own.href }), ")");
    }
  }
  function probeStorage() {
    let req;
    try {
      req = window.indexedDB.open("swarmlab-storage-probe");
    } catch (e) {
      storageBlocked(e);
      return;
    }
    req.onerror = () => storageBlocked(req.error);
    req.onsuccess = () => {
      try { req.result.close(); window.indexedDB.deleteDatabase("swarmlab-storage-probe"); } catch (e) { /* nothing left to tidy */ }
    };
  }

  window.SwarmBoot = { stage, fail, ready, whenReady, prefetch, state, timing: TIMING, bootMs: null };
  if (!FILE_MODE) probeStorage();
  document.addEventListener("DOMContentLoaded", () => {
    if (!checkFileProtocol()) render();
    const retry = $("boot-error-retry");
    // (with a newer build waiting, the offline copy's register script starts that build instead)
    if (retry) retry.addEventListener("click", () => {
      const offline = window.swarmlabOffline;
      if (offline && typeof offline.reload === "function") offline.reload(); else location.reload();
    });
  });
})();
