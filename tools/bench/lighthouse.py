"""Lighthouse 12.2.3 on every lab: total blocking time and the accessibility score.

    python -m tools.bench lighthouse [--runs 1] [--root dist/site] [--labs swarm,vicsek,boids]

For each lab (``?lab=...``) and each form factor (Lighthouse's ``desktop`` preset and its
default ``mobile`` emulation), one Lighthouse run on a local gzip static server
(tools/serve.py ``--gzip``, as static hosts serve) reports

* **TBT**, Lighthouse's total blocking time (main-thread tasks beyond 50 ms, summed, on its
  simulated throttling), issue 12's measure: the engine and its boot run in a Web Worker,
  so the page's main thread should stay free (goal under 600 ms on desktop);
* **accessibility**, the category score ×100 (issue 15's goal: 100 for every lab, desktop and
  mobile), with the title of every failing audit so a regression says what to fix.

These are Lighthouse's own simulated numbers (lantern), not wall-clock thresholds; the bench
prints them and never fails on them.  ``--runs N`` takes the median TBT of N runs.

Lighthouse lives in ``tools/bench/lighthouse/`` (its own package.json and lock, so
``make test`` does not install it); ``make bench`` runs ``npm ci`` there.  The browser is
``$CHROMIUM`` (Debian's chromium), passed to Lighthouse as ``CHROME_PATH``.  Results go to
``dist/bench/lighthouse.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from browser_paths import chromium_path  # noqa: E402
from serve import Background, make_server  # noqa: E402

HERE = Path(__file__).resolve().parent / "lighthouse"
CLI = HERE / "node_modules" / ".bin" / "lighthouse"
LABS = ("swarm", "vicsek", "boids")
FORMS = ("desktop", "mobile")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-dev-shm-usage"


def run_lighthouse(url: str, form: str, chrome: str) -> dict:
    """One Lighthouse run; returns {"tbt_ms", "a11y", "failing": [titles], "performance"}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [str(CLI), url, f"--chrome-flags={CHROME_FLAGS}", "--only-categories=performance,accessibility",
               "--output=json", f"--output-path={out}", "--quiet", "--max-wait-for-load=120000"]
        if form == "desktop":
            cmd.append("--preset=desktop")
        proc = subprocess.run(cmd, env={**os.environ, "CHROME_PATH": chrome}, capture_output=True, text=True,
                              timeout=600)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"lighthouse failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
        report = json.loads(out.read_text())
    if report.get("runtimeError"):
        raise RuntimeError(f"lighthouse: {report['runtimeError'].get('message')}")
    cats, audits = report["categories"], report["audits"]
    failing = []
    for ref in cats["accessibility"]["auditRefs"]:
        audit = audits[ref["id"]]
        if audit["score"] is not None and audit["score"] < 1:
            # the audit's title and the elements it names (selectors), so a regression says what to fix
            items = (audit.get("details") or {}).get("items") or []
            where = sorted({(it.get("node") or {}).get("selector", "?") for it in items})[:4]
            failing.append(audit["title"] + (f" [{', '.join(where)}]" if where else ""))
    return {"tbt_ms": audits["total-blocking-time"]["numericValue"],
            "a11y": round(100 * cats["accessibility"]["score"]),
            "performance": round(100 * (cats["performance"]["score"] or 0)),
            "failing": failing}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench lighthouse", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1, help="runs per lab and form factor (median TBT; default 1)")
    ap.add_argument("--root", default=None, help="folder to serve (default: dist/site if built, else the repo)")
    ap.add_argument("--labs", default=",".join(LABS))
    ap.add_argument("--json", default=str(ROOT / "dist" / "bench" / "lighthouse.json"))
    args, _ = ap.parse_known_args(argv)
    if not CLI.exists():
        print(f"lighthouse is not installed: run  npm ci --prefix {HERE.relative_to(ROOT)}  (make bench does)")
        return 1
    chrome = chromium_path()
    if not chrome:
        print("no Chromium found (set CHROMIUM)")
        return 1
    site = ROOT / "dist" / "site"
    root = Path(args.root) if args.root else (site if (site / "index.html").exists() else ROOT)
    served = Background(make_server(root, "127.0.0.1", 0, quiet=True, gzip=True))
    url = served.url
    print(f"Lighthouse on {root.relative_to(ROOT) if root.is_relative_to(ROOT) else root} (gzip server), "
          f"{args.runs} run(s) each; TBT goal < 600 ms desktop, accessibility goal 100")
    print(f"{'lab':<8} {'form':<8} {'TBT ms':>8} {'perf':>5} {'a11y':>5}  failing accessibility audits")
    results = []
    try:
        for lab in args.labs.split(","):
            for form in FORMS:
                runs = [run_lighthouse(f"{url}/?lab={lab}", form, chrome) for _ in range(max(1, args.runs))]
                row = {"lab": lab, "form": form, "tbt_ms": statistics.median(r["tbt_ms"] for r in runs),
                       "a11y": min(r["a11y"] for r in runs), "performance": statistics.median(r["performance"] for r in runs),
                       "failing": sorted({t for r in runs for t in r["failing"]}), "runs": runs}
                results.append(row)
                print(f"{lab:<8} {form:<8} {row['tbt_ms']:>8.0f} {row['performance']:>5.0f} {row['a11y']:>5}  "
                      f"{'; '.join(row['failing']) or '-'}", flush=True)
    finally:
        served.close()
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"root": str(root), "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
