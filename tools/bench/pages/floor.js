// The benchmark floors' bookkeeping (pyodide.html, pyscript-worker.html): tools/bench reads
// window.__bench.done (performance.now() once numpy is imported) or window.__bench.error.
export const bench = (window.__bench = window.__bench || {});

/** Await `start` (resolves once numpy is imported), then note the time; or note the error. */
export async function timeFloor(start) {
  try {
    await start();
    bench.done = performance.now();
    document.getElementById("status").textContent = `numpy imported at ${bench.done.toFixed(0)} ms`;
  } catch (err) {
    bench.error = String((err && err.stack) || err);
  }
}
