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
    "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl": { stage: "numpy", size: 2573156 },
  };
  const STAGES = [
    { id: "runtime", label: "Python runtime" },
    { id: "numpy", label: "numpy" },
    { id: "engine", label: "Swarm Lab engine" },
  ];
  const STALL_MS = 45000; // no progress for this long: say so, with what to try

  const state = {
    stage: "runtime",
    loaded: {},
    total: {},
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

  function stage(id, detail) {
    if (state.failed || state.done) return;
    state.stage = id;
    state.lastProgress = Date.now();
    const msg = $("boot-message");
    if (msg && detail) msg.textContent = detail;
    render();
  }

  // A soft failure (a stall) may still end well: a late ready() replaces it.
  function fail(what, detail, hint, { soft = false } = {}) {
    if (FILE_MODE && what !== FILE_WHAT) return;
    if (state.failed || state.done) {
      if (state.done) console.error("[swarmlab]", what, detail);
      return;
    }
    state.failed = true;
    state.soft = soft;
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
    document.documentElement.classList.add("boot-failed");
    try { window.dispatchEvent(new CustomEvent("swarmlab:boot-failed", { detail: { what, detail } })); } catch (e) { /* old browser */ }
  }

  function defaultHint() {
    return "Reload the page. If it fails again, try a current Chrome, Edge, Firefox or Safari; " +
      "if you run your own copy, run `make run` again (it re-checks the downloaded runtime).";
  }

  function ready() {
    if (state.failed && !state.soft) return;
    if (state.failed) { // the stall is over after all
      state.failed = false;
      const panel = $("boot-error");
      if (panel) panel.hidden = true;
      document.documentElement.classList.remove("boot-failed");
    }
    state.done = true;
    const overlay = $("boot-overlay");
    if (overlay) overlay.hidden = true;
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
      let response;
      try {
        response = await realFetch(input, init);
      } catch (err) {
        if (!state.done && (key || sameOrigin(url))) {
          fail(`could not download ${shortName(url)}`, String(err && err.message || err),
            "Check your connection to the site that serves Swarm Lab and reload.");
        }
        throw err;
      }
      if (!response.ok && !state.done && (key || sameOrigin(url)) && !/\.py$/.test(url.split("?")[0]) ) {
        fail(`could not download ${shortName(url)} (HTTP ${response.status})`,
          `${url} answered ${response.status} ${response.statusText}`,
          "The copy of Swarm Lab on this site is incomplete. If you host it, run `make dist` (or `make run` locally) again; otherwise tell your teacher.");
        return response;
      }
      if (!response.ok && !state.done && /\.py$/.test(url.split("?")[0])) {
        fail(`could not load the engine file ${shortName(url)} (HTTP ${response.status})`, url,
          "The Swarm Lab engine files are missing on this site; re-deploy the whole folder.");
        return response;
      }
      if (!key || !response.body || state.done) return response;
      state.pending++;
      const len = Number(response.headers.get("Content-Length")) || FILES[key].size;
      state.total[key] = len;
      state.loaded[key] = 0;
      const reader = response.body.getReader();
      const counted = new ReadableStream({
        async pull(controller) {
          let chunk;
          try {
            chunk = await reader.read();
          } catch (err) {
            state.pending--;
            throw err;
          }
          const { done, value } = chunk;
          if (done) { state.pending--; controller.close(); return; }
          state.loaded[key] += value.byteLength;
          state.lastProgress = Date.now();
          render();
          controller.enqueue(value);
        },
        cancel(reason) { state.pending--; return reader.cancel(reason); },
      });
      if (FILES[key].stage === "numpy") stage("numpy", "Downloading numpy…");
      return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
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
    if (t && t !== window && (t.src || t.href)) {
      fail(`could not load ${shortName(t.src || t.href)}`, t.src || t.href,
        "A file of the app is missing or blocked. Reload; if you host Swarm Lab, re-deploy the whole folder.");
    }
  }, true);
  window.addEventListener("unhandledrejection", (ev) => {
    if (state.done) return;
    const r = ev.reason;
    record((r && (r.stack || r.message)) || String(r));
    fail("the Python runtime did not start", (r && r.message) || String(r));
  });
  // A Content-Security-Policy that forbids what the runtime needs: say so at once.
  document.addEventListener("securitypolicyviolation", (ev) => {
    if (state.done || state.failed) return;
    const d = ev.effectiveDirective || ev.violatedDirective || "";
    if (!/^(script-src|default-src|connect-src)/.test(d)) return;
    if (/^blob/.test(ev.blockedURI || "")) return; // a blocked worker: the engine falls back to the main thread
    const what = ev.blockedURI === "wasm-eval" ? "WebAssembly (needs 'wasm-unsafe-eval')"
      : ev.blockedURI === "eval" ? "Function()/eval (PyScript needs 'unsafe-eval')" : ev.blockedURI;
    fail("this site's Content-Security-Policy blocks the Python runtime",
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
  window.addEventListener("py:progress", (ev) => {
    const d = String(ev.detail || "");
    state.lastProgress = Date.now();
    if (/numpy/i.test(d)) stage("numpy", d.replace(/^Load/, "Load") + "…");
    else if (/Loaded Pyodide/.test(d)) stage("engine", "Starting the engine…");
    const msg = $("boot-message");
    if (msg && d && !state.failed) msg.textContent = d;
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
        "Your connection may be slow or interrupted. Reload; if this repeats, try another network or browser.",
        { soft: true });
    } else if (state.pending === 0 && quiet > 8000) {
      const msg = $("boot-message");
      const s = Math.round(((typeof performance !== "undefined" ? performance.now() : 0) - state.started) / 1000);
      if (msg) msg.textContent = `Still starting Python… (${s} s so far; a slow device can take a minute or more)`;
    }
  }, 2000);

  // --- prefetch: start every runtime download at once, in parallel, through the wrapper ---
  // The engine runs in a worker, whose own fetches this page cannot see; fetching the same
  // files here first shows real progress and fills the HTTP cache the worker then reads.
  function prefetch(interpreterURL) {
    const base = String(interpreterURL).replace(/[^/]*$/, "");
    for (const name in FILES) {
      window.fetch(base + name).then((r) => (r.ok ? r.arrayBuffer() : null)).catch(() => null);
    }
  }

  // --- file:// without the single-file build: explain instead of failing cryptically ---
  function checkFileProtocol() {
    if (FILE_MODE) {
      fail(FILE_WHAT,
        `Browsers do not let a page opened from a folder (${location.pathname.split("/").pop() || "index.html"}) load the Python runtime it needs.`,
        "Open the single-file version instead (swarm-lab.html, built with `make offline`), which works with a double-click and no network; or serve this folder with `make run` and open the address it prints.");
      return true;
    }
    return false;
  }

  window.SwarmBoot = { stage, fail, ready, whenReady, prefetch, state, bootMs: null };
  document.addEventListener("DOMContentLoaded", () => {
    if (!checkFileProtocol()) render();
    const retry = $("boot-error-retry");
    if (retry) retry.addEventListener("click", () => location.reload());
  });
})();
