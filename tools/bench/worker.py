"""The engine in a Web Worker against the same engine on the page's main thread.

``python -m tools.bench worker [--loads N] [--seconds S]``.  Everything is measured side
by side in one run, in headless Chromium, on the served app (``?engine=main`` forces the
main-thread engine, which is what the single file uses):

1. Boot: total blocking time of the page's main thread while Python starts (the time of
   each stall beyond 50 ms, summed, as Lighthouse counts it), from a 10 ms timer loop.
2. Heavy settings (2,000 boids in a 10 x 10 world): the worst and total stall of the main
   thread over a few seconds of play, and how long a click on Pause takes to show.
3. Frame pacing at the Swarm Lab's default population, 1x and 4x: displayed frames per
   second and model steps per real second.
4. One request a frame: the round trip of a step + frame + panel + history request, and
   the engine time inside it (the host's own ``ms``).

Ratios are printed; absolute times on a shared machine move between runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from serve import Background, make_server  # noqa: E402

CHROME_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]

GAPS = """() => {
  window.__gaps = []; let last = performance.now();
  const tick = () => { const now = performance.now();
    const st = window.SwarmBoot && window.SwarmBoot.state;
    const booting = !document.documentElement.classList.contains('booted');
    if (booting && st && st.pending === 0 && Object.keys(st.loaded).length >= 4) window.__gaps.push(now - last);
    last = now; if (booting) setTimeout(tick, 10); };
  setTimeout(tick, 10);
}"""

PLAY_GAPS = """(ms) => new Promise((resolve) => {
  const gaps = []; let last = performance.now(); const end = last + ms; let frames = 0;
  const raf = () => { frames++; if (performance.now() < end) requestAnimationFrame(raf); };
  requestAnimationFrame(raf);
  const tick = () => { const now = performance.now(); gaps.push(now - last); last = now;
    if (now < end) setTimeout(tick, 10); else resolve({ gaps, frames }); };
  setTimeout(tick, 10);
})"""


def tbt(gaps):
    return sum(max(0.0, g - 50.0) for g in gaps)


def chromium():
    for c in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if Path(c).exists():
            return c
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench worker", description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", type=int, default=3, help="boots per engine placement (default 3)")
    ap.add_argument("--seconds", type=float, default=4.0, help="seconds of play per measurement (default 4)")
    ap.add_argument("--json", default=str(ROOT / "dist" / "bench" / "worker.json"))
    args, _ = ap.parse_known_args(argv)
    from playwright.sync_api import sync_playwright

    served = Background(make_server(ROOT, "127.0.0.1", 0, quiet=True))
    url = served.url
    out = {"boot": {}, "heavy": {}, "pacing": {}, "request": {}}
    try:
        with sync_playwright() as pw:
            kw = {"args": CHROME_ARGS, "headless": True}
            if chromium():
                kw["executable_path"] = chromium()
            browser = pw.chromium.launch(**kw)

            def open_page(query, init=None):
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                page = ctx.new_page()
                if init:
                    page.add_init_script(init)
                page.goto(f"{url}/?{query}")
                page.wait_for_function("() => document.documentElement.classList.contains('lab-ready')", timeout=120_000)
                return ctx, page

            # 1. boot, interleaved so both placements see the same machine
            for k in range(args.loads):
                for engine in ("worker", "main"):
                    q = "lab=vicsek" + ("&engine=main" if engine == "main" else "")
                    ctx, page = open_page(q, GAPS.join(["document.addEventListener('DOMContentLoaded', ", ")"]))
                    g = page.evaluate("window.__gaps")
                    out["boot"].setdefault(engine, []).append({"tbt": tbt(g), "worst": max(g or [0])})
                    ctx.close()
            b = {e: statistics.median(r["tbt"] for r in v) for e, v in out["boot"].items()}
            print(f"1. boot, main-thread total blocking time while Python starts (median of {args.loads}): "
                  f"worker {b['worker']:.0f} ms, main thread {b['main']:.0f} ms -> "
                  f"{b['worker'] / max(b['main'], 1e-9):.2f}x")

            # 2. heavy settings
            for engine in ("worker", "main"):
                q = "lab=boids&population=2000&world=10x10" + ("&engine=main" if engine == "main" else "")
                ctx, page = open_page(q)
                page.wait_for_timeout(1500)
                r = page.evaluate(PLAY_GAPS, args.seconds * 1000)
                pause_ms = page.evaluate("""() => new Promise((resolve) => { const b = document.querySelector('#lab-boids .bd-play');
                    const t = performance.now(); b.click(); requestAnimationFrame(() => resolve(performance.now() - t)); })""")
                out["heavy"][engine] = {"worst": max(r["gaps"]), "tbt_per_s": tbt(r["gaps"]) / args.seconds,
                                        "fps": r["frames"] / args.seconds, "pause_to_paint_ms": pause_ms}
                ctx.close()
            h = out["heavy"]
            print(f"2. 2,000 boids in 10x10: worst main-thread stall worker {h['worker']['worst']:.0f} ms vs main thread "
                  f"{h['main']['worst']:.0f} ms ({h['worker']['worst'] / max(h['main']['worst'], 1e-9):.2f}x); "
                  f"blocking {h['worker']['tbt_per_s']:.0f} vs {h['main']['tbt_per_s']:.0f} ms per s; "
                  f"page fps {h['worker']['fps']:.0f} vs {h['main']['fps']:.0f}; Pause painted after "
                  f"{h['worker']['pause_to_paint_ms']:.0f} vs {h['main']['pause_to_paint_ms']:.0f} ms")

            # 3 + 4. pacing and the per-frame request, in each placement
            for engine in ("worker", "main"):
                q = "lab=swarm" + ("&engine=main" if engine == "main" else "")
                ctx, page = open_page(q)
                rows = {}
                for speed in (1, 4):
                    page.evaluate(f"() => window.swarmlab.labs.get('swarm').test.setSpeed({speed})")
                    s0 = page.evaluate("() => window.swarmlab.labs.get('swarm').test.frame.step")
                    r = page.evaluate(PLAY_GAPS, args.seconds * 1000)
                    s1 = page.evaluate("() => window.swarmlab.labs.get('swarm').test.frame.step")
                    rows[f"{speed}x"] = {"fps": r["frames"] / args.seconds,
                                         "steps_per_s": (s1 - s0) / args.seconds, "worst": max(r["gaps"])}
                page.evaluate("() => window.swarmlab.labs.get('swarm').test.setSpeed(1)")
                page.evaluate("() => window.swarmlab.labs.get('swarm').test.setPlaying(false)")
                req = page.evaluate("""async () => { const e = window.swarmlab.engine; const rt = [], ms = [];
                    for (let k = 0; k < 60; k++) { const t = performance.now();
                      const r = await e.batch('swarm', [['step', {n: 1}], ['selected', {}], ['history', {}]], {frame: true});
                      rt.push(performance.now() - t); ms.push(r.ms); e.recycle('swarm', r.frame); }
                    rt.sort((a, b) => a - b); ms.sort((a, b) => a - b); return { rt: rt[30], ms: ms[30] }; }""")
                out["pacing"][engine] = rows
                out["request"][engine] = req
                ctx.close()
            for engine in ("worker", "main"):
                p = out["pacing"][engine]
                print(f"3. Swarm Lab pacing ({engine}): 1x {p['1x']['fps']:.0f} fps, {p['1x']['steps_per_s']:.0f} steps/s; "
                      f"4x {p['4x']['fps']:.0f} fps, {p['4x']['steps_per_s']:.0f} steps/s (real time asks 60 / 240)")
            rq = out["request"]
            print(f"4. one request a frame (step + frame + panel + history), median: worker round trip "
                  f"{rq['worker']['rt']:.2f} ms of which engine {rq['worker']['ms']:.2f} ms; main thread "
                  f"{rq['main']['rt']:.2f} ms of which engine {rq['main']['ms']:.2f} ms; messaging overhead "
                  f"{rq['worker']['rt'] - rq['worker']['ms']:.2f} ms")
            browser.close()
    finally:
        served.close()
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
