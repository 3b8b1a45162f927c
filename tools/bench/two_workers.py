"""Does a second engine worker pay for Lab 2's eight-seed check?

    python -m tools.bench two_workers [--loads 3]

Today the check runs in the one engine worker, in chunks that ride on the stage's requests
(``labs/vicsek/check.js``): the stage and the check share one Python.  The alternative is a
second PyWorker (a second Pyodide) that runs the check alone while the first one plays the
stage.  In headless Chromium, on the Vicsek page served from the repo, for each load:

* **one worker**: the page's own check, from its start to its table, with the stage playing;
  the stage's model updates per second and the page's frames per second meanwhile;
* **two workers**: on the same page afterwards, a second engine worker is started (timed:
  boot to its first answer) and runs the same check (``check_start``, ``check_advance`` in
  chunks of 500 updates, ``check_result``) while the stage keeps playing in the first;
  the same rates meanwhile.  Both checks must give the same mean P with a = 1 (asserted).

Printed: medians over the loads and the ratios (two workers / one worker) of the check's time
with and without the second boot, and of the stage's rate.  ``os.cpu_count()`` is printed
too: with two cores the second worker competes with the page's drawing and the first worker.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from browser_paths import chromium_path  # noqa: E402
from serve import Background, make_server  # noqa: E402

CHROME_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]

# Rates of the stage: model updates (the section's data-t) and animation frames, between two calls.
RATES_JS = """() => { const s = document.querySelector('#lab-vicsek');
  if (!window.__rate) { window.__rate = { frames: 0 }; const f = () => { window.__rate.frames++; requestAnimationFrame(f); }; requestAnimationFrame(f); }
  return { t: Number(s.dataset.t), frames: window.__rate.frames, now: performance.now() }; }"""

SECOND_WORKER_JS = """async () => {
  const { PyWorker } = await import('./assets/vendor/pyscript/core.js');
  const { Engine, WorkerTransport } = await import('./assets/js/engine.js');
  const script = document.getElementById('engine-script').content.querySelector('script');
  const abs = (u) => new URL(u, document.baseURI).href;
  const t0 = performance.now();
  const w = await PyWorker(abs(script.getAttribute('src')), { config: abs(script.getAttribute('config')), version: abs(script.dataset.interpreter) });
  const e = new Engine(new WorkerTransport(w));
  await e.info();
  const t1 = performance.now();
  await e.call('vicsek', 'check_start', { mode: 'batched' });
  let done = false;
  while (!done) done = (await e.call('vicsek', 'check_advance', { updates: 500 })).done;
  const result = await e.call('vicsek', 'check_result', {});
  const t2 = performance.now();
  w.terminate && w.terminate();
  return { boot_ms: t1 - t0, check_ms: t2 - t1, result };
}"""


def rate(a: dict, b: dict) -> tuple[float, float]:
    s = max(1e-9, (b["now"] - a["now"]) / 1000)
    return (b["t"] - a["t"]) / s, (b["frames"] - a["frames"]) / s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench two_workers", description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", type=int, default=3)
    ap.add_argument("--json", default=str(ROOT / "dist" / "bench" / "two_workers.json"))
    args, _ = ap.parse_known_args(argv)
    from playwright.sync_api import sync_playwright

    served = Background(make_server(ROOT, "127.0.0.1", 0, quiet=True))
    url = served.url
    rows = []
    try:
        with sync_playwright() as pw:
            kw = {"args": CHROME_ARGS, "headless": True}
            if chromium_path():
                kw["executable_path"] = chromium_path()
            browser = pw.chromium.launch(**kw)
            for _ in range(args.loads):
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                page = ctx.new_page()
                page.goto(f"{url}/?lab=vicsek")
                page.wait_for_function("() => document.documentElement.classList.contains('lab-ready')", timeout=120_000)
                page.evaluate("() => window.swarmlab.labs.get('vicsek').play()")
                page.wait_for_function("() => ['running', 'done'].includes(document.querySelector('#lab-vicsek').dataset.check)",
                                       timeout=120_000, polling=10)
                a = page.evaluate(RATES_JS)
                page.wait_for_function("() => document.querySelector('#lab-vicsek').dataset.check === 'done'",
                                       timeout=600_000, polling=10)
                b = page.evaluate(RATES_JS)
                one_ms = float(page.get_attribute("#lab-vicsek", "data-check-ms"))
                one_summary = page.inner_text("#lab-vicsek .vk-check-summary")
                one_ups, one_fps = rate(a, b)
                c = page.evaluate(RATES_JS)
                two = page.evaluate(SECOND_WORKER_JS)
                d = page.evaluate(RATES_JS)
                two_ups, two_fps = rate(c, d)
                mean = two["result"]["mean"]
                # the same check in either worker: the same mean P with a = 1
                assert f"{mean['a1']:.3f}" in one_summary, (mean, one_summary)
                rows.append({"one_check_ms": one_ms, "one_ups": one_ups, "one_fps": one_fps,
                             "two_boot_ms": two["boot_ms"], "two_check_ms": two["check_ms"],
                             "two_ups": two_ups, "two_fps": two_fps})
                ctx.close()
            browser.close()
    finally:
        served.close()
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(f"cores: {os.cpu_count()}; {len(rows)} load(s), medians")
    print(f"{'':34} {'one worker':>11} {'two workers':>12} {'two / one':>10}")
    print(f"{'eight-seed check, s':34} {med['one_check_ms'] / 1000:>11.2f} {med['two_check_ms'] / 1000:>12.2f} "
          f"{med['two_check_ms'] / med['one_check_ms']:>10.2f}")
    both = med["two_boot_ms"] + med["two_check_ms"]
    print(f"{'  + second worker boot, s':34} {'':>11} {both / 1000:>12.2f} {both / med['one_check_ms']:>10.2f}")
    print(f"{'stage updates per s during check':34} {med['one_ups']:>11.1f} {med['two_ups']:>12.1f} "
          f"{med['two_ups'] / max(1e-9, med['one_ups']):>10.2f}")
    print(f"{'page frames per s during check':34} {med['one_fps']:>11.1f} {med['two_fps']:>12.1f} "
          f"{med['two_fps'] / max(1e-9, med['one_fps']):>10.2f}")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"rows": rows, "median": med, "cores": os.cpu_count()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
