"""Deploy benchmarks (issue 19): how fast the *built* app starts, side by side in one run.

Run::

    .venv/bin/python -m tools.bench deploy            # ~3 minutes; needs `make dist offline`
    .venv/bin/python -m tools.bench deploy --loads 3  # fewer loads per page

``make bench`` runs it as the "deploy" part of tools/bench/browser.py.  Everything is served
by ``tools/serve.py`` with ``--gzip --cache max-age=600`` (as GitHub Pages compresses text,
JS, JSON and wasm and lets browsers reuse a file for ten minutes),
and the server counts the bytes it sends, so "bytes on the wire" includes what workers
fetch.  Each row is a median of cold loads interleaved with the floors in the same run.  A
cold load is a new browser context: its HTTP cache starts empty, as on a first visit, and
is *not* switched off, because the engine's Web Worker is meant to find the files the page
preloaded in that cache (switching it off for the page would make the worker download
them a second time, which no real visit does).

1. ``dist/site`` served, first simulated frame, against **bare Pyodide + numpy** from the
   *official* files (``assets/vendor/official``: what Pyodide ships, not py-compiled) and from
   the app's own runtime (py-compiled and trimmed, when the build had Python 3.12).
   Beside them, **the stack's floor** (``pages/pyscript-worker.html``): the same preloads,
   PyScript's worker started as ``assets/js/engine.js`` starts it, and a worker whose only
   Python is ``import numpy``.  No engine, no page: what the chosen stack costs before the app
   does anything.
2. ``dist/swarm-lab.html`` from ``file://``, first frame, against the same floor, and beside
   it the same file without the app (``single_floor.py``: the page only starts PyScript, whose
   script only imports numpy), the single file's own floor.
3. **Second visit with the network off**: one context visits ``dist/site``, waits until the
   service worker holds the offline copy, goes offline and reloads; first frame of that
   reload against the cold first frame.  Then, after a pause, a third visit (still offline):
   Chromium reuses a wasm module's compiled code from that load on (V8 keeps it only after a
   "warm" run, one compiled from a cached response), so the third visit is what a student
   who comes back to the page sees from then on.  Each offline round also visits the stack's
   floor three times in one context: its third visit (every file in the HTTP cache, the
   wasm's code in V8's cache) is the least that any visit can cost.
4. **10 Mbps / 40 ms**, cold: first frame against the transfer floor ``wire bytes /
   bandwidth``.  The link is emulated by the server (``tools/serve.py --throttle 10:40``: one
   shared 10 Mbps pipe, 40 ms before each response), so it slows the engine worker's own
   requests too.  DevTools' ``Network.emulateNetworkConditions`` on the page's target does
   not reach a dedicated worker's requests; ``--throttle-via cdp`` measures that way for
   comparison (it flatters the app).
5. **Bytes on the wire** per cold load (gzip host), by file.

Results go to ``dist/bench/deploy.json`` (or into browser.json when run as a part).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools import serve  # noqa: E402
from tools.bench import browser as B  # noqa: E402
from tools.bench import single_floor  # noqa: E402

SITE = ROOT / "dist" / "site"
OFFLINE = ROOT / "dist" / "swarm-lab.html"
MBPS, RTT_MS = 10.0, 40.0
HOT_WAIT_S = 8.0  # after the offline second visit: time for V8 to optimise and cache the wasm
CACHE_CONTROL = "max-age=600"  # what GitHub Pages sends


class _Counting:
    """A file-like wrapper that adds what is written to a shared tally."""

    def __init__(self, raw, tally, path):
        self._raw, self._tally, self._path = raw, tally, path

    def write(self, data):
        n = self._raw.write(data)
        self._tally.add(self._path(), len(data) if n is None else n)
        return n

    def __getattr__(self, name):
        return getattr(self._raw, name)


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.bytes = 0
            self.by_path: dict[str, int] = {}
            self.requests = 0

    def add(self, path, n):
        with self.lock:
            self.bytes += n
            self.by_path[path] = self.by_path.get(path, 0) + n

    def snapshot(self) -> dict:
        with self.lock:
            return {"bytes": self.bytes, "requests": self.requests, "by_path": dict(self.by_path)}


class GzipServer(serve.Background):
    """tools/serve.py with --gzip on a loopback port, counting the bytes it sends."""

    def __init__(self, root: Path, throttle: str | None = None):
        self.tally = tally = Tally()
        # gzip and Cache-Control: max-age=600, as GitHub Pages serves the site.
        httpd = serve.make_server(root, "127.0.0.1", 0, quiet=True, gzip=True, throttle=throttle,
                                  cache=CACHE_CONTROL)
        # Compress the big files now, so that no load pays for the server's first gzip.
        for folder in ("assets/vendor", "app"):
            for f in sorted((root / folder).rglob("*")) if (root / folder).is_dir() else []:
                if f.is_file() and f.stat().st_size > 100_000 and f.suffix in (".wasm", ".js", ".mjs", ".json"):
                    serve.gzipped(str(f))
        httpd.handle_error = lambda request, client_address: None  # a closed context drops its requests

        class Counted:
            def setup(self):
                super().setup()
                self.wfile = _Counting(self.wfile, tally, lambda: getattr(self, "path", "?").split("?")[0])

            def handle_one_request(self):
                super().handle_one_request()
                if getattr(self, "command", None):
                    with tally.lock:
                        tally.requests += 1

        serve.extend_handler(httpd, Counted)
        super().__init__(httpd)


# When each big file was requested and finished (the page's own requests; a worker's are not listed).
WATERFALL = r"""
() => performance.getEntriesByType('resource')
  .filter((e) => (e.encodedBodySize || e.transferSize || 0) > 20000)
  .map((e) => ({ name: e.name.split('/').pop().split('?')[0], start: e.startTime, end: e.responseEnd,
                 bytes: e.transferSize || e.encodedBodySize }))
  .sort((a, b) => a.start - b.start)
"""

SW_READY = "() => window.swarmlabOffline && ['ready', 'unavailable', 'failed'].includes(window.swarmlabOffline.state)"


class DeployBench:
    def __init__(self, bench: B.Bench, loads: int, offline_loads: int, throttled_loads: int,
                 throttle_via: str = "server"):
        self.b = bench
        self.loads, self.offline_loads, self.throttled_loads = loads, offline_loads, throttled_loads
        self.throttle_via = throttle_via
        self.site = GzipServer(SITE)
        self.root = GzipServer(ROOT)
        self.slow_site = GzipServer(SITE, throttle=f"{MBPS:g}:{RTT_MS:g}") if throttle_via == "server" else None

    def close(self):
        self.site.close()
        self.root.close()
        if self.slow_site:
            self.slow_site.close()

    def urls(self) -> dict:
        return {
            "app": (self.site, f"{self.site.url}/?lab=swarm"),
            "official": (self.root, f"{self.root.url}/{B.PAGES}/pyodide.html?runtime=official"),
            "compiled": (self.root, f"{self.root.url}/{B.PAGES}/pyodide.html"),
            "stack": (self.root, f"{self.root.url}/{B.PAGES}/pyscript-worker.html"),
            "offline": (None, OFFLINE.as_uri() + "?lab=swarm"),
            "single_floor": (None, single_floor.OUT.as_uri() + "?lab=swarm"),
        }

    def load(self, kind: str, throttle: bool = False) -> dict:
        server, url = self.urls()[kind]
        if throttle and self.slow_site:
            server, url = self.slow_site, f"{self.slow_site.url}/?lab=swarm"
        page_kind = "app" if kind in ("app", "offline") else "pyodide"  # (floors: window.__bench.done)
        # A new context: an empty HTTP cache (a first visit), which the worker shares with the page.
        ctx, page = self.b.new_context(cold=False, init=B.BOOT_INIT)
        if throttle and not self.slow_site:
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", {
                "offline": False, "latency": RTT_MS,
                "downloadThroughput": MBPS * 1e6 / 8, "uploadThroughput": MBPS * 1e6 / 8,
            })
        if server:
            time.sleep(0.05)
            server.tally.reset()
        try:
            page.goto(url)
            out = B.booted(page, page_kind)
            if out.get("error"):
                out["error"] = B._last_line(out["error"])
            if throttle:
                out["waterfall"] = page.evaluate(WATERFALL)
        except Exception as exc:  # noqa: BLE001 - a failed load is reported, not fatal
            out = {"error": f"{type(exc).__name__}: {B._last_line(exc)[:200]}", "ms": None, "console": page.errors[:3]}
        finally:
            ctx.close()
        if server:
            out["wire"] = server.tally.snapshot()
        return out

    def second_visit_offline(self) -> dict:
        """Visit, wait for the offline copy, network off, reload: the reload's first frame."""
        ctx, page = self.b.new_context(init=B.BOOT_INIT)
        out: dict = {}
        try:
            time.sleep(0.05)
            self.site.tally.reset()
            page.goto(f"{self.site.url}/?lab=swarm")
            out["first_ms"] = B.booted(page, "app").get("ms")
            t0 = time.perf_counter()
            page.wait_for_function(SW_READY, timeout=B.LOAD_TIMEOUT_MS)
            out["sw"] = page.evaluate("() => window.swarmlabOffline")
            out["sw_ready_s_after_first_frame"] = time.perf_counter() - t0
            # The whole first visit: the boot, then the service worker's install, which fetches
            # what the boot did not need (the other labs, the rules editor) for the offline copy.
            out["first_visit_bytes"] = self.site.tally.snapshot()["bytes"]
            ctx.set_offline(True)
            self.site.tally.reset()
            page.reload()
            r = B.booted(page, "app")
            out.update(ms=r.get("ms"), error=B._last_line(r["error"]) if r.get("error") else None,
                       controlled=page.evaluate("() => !!navigator.serviceWorker.controller"),
                       network_bytes=self.site.tally.snapshot()["bytes"])
            # Chromium keeps a wasm module's compiled code only once it has been compiled from a
            # cached response and fully optimised (V8's "warm" run); the run after that (here
            # the third visit) loads the code instead of compiling (trace: wasm.Deserialize in
            # the engine's worker, lazy compilation 3.9 s -> 0.25 s on a loaded VM).
            time.sleep(HOT_WAIT_S)
            page.reload()
            r = B.booted(page, "app")
            out.update(third_ms=r.get("ms") if not r.get("error") else None)
        except Exception as exc:  # noqa: BLE001
            out.update(ms=None, error=f"{type(exc).__name__}: {B._last_line(exc)[:200]}")
        finally:
            ctx.close()
        return out

    def stack_visits(self) -> dict:
        """The stack's floor page visited three times in one context (no service worker): the
        third visit finds every file in the HTTP cache and the wasm's compiled code in V8's cache,
        after the same pause as the app's third visit.  What is left is PyScript's and Python's
        own start, a lower bound for any visit of the app however it is cached."""
        _, url = self.urls()["stack"]
        ctx, page = self.b.new_context(init=B.BOOT_INIT)
        out: dict = {"ms": []}
        try:
            for visit in range(3):
                if visit == 2:
                    time.sleep(HOT_WAIT_S)
                page.goto(url) if visit == 0 else page.reload()
                r = B.booted(page, "pyodide")
                if r.get("error"):
                    raise RuntimeError(B._last_line(r["error"]))
                out["ms"].append(r.get("ms"))
        except Exception as exc:  # noqa: BLE001
            out["error"] = f"{type(exc).__name__}: {B._last_line(exc)[:200]}"
        finally:
            ctx.close()
        return out

    def run(self) -> dict:
        res: dict = {"loads": self.loads}
        if not SITE.is_dir():
            self.b.say("\n7. Deploy: n/a (dist/site is not built: run `make dist`)")
            return {"error": "dist/site missing"}
        manifest = json.loads((ROOT / "assets" / "vendor" / "VENDORED.json").read_text())
        res["runtime"] = manifest.get("runtime")
        kinds = ["app", "official", "compiled", "stack"]
        if OFFLINE.exists():  # the single file, and the same file without the app (its floor)
            single_floor.build()
            kinds += ["offline", "single_floor"]
        runs = {k: [] for k in kinds}
        for i in range(self.loads):
            for k in kinds:
                r = self.load(k)
                runs[k].append(r)
                print(f"  deploy load {i + 1}/{self.loads} {k:9s} {B.fmt(r.get('ms'), 0)} ms"
                      + (f"  ({r['error']})" if r.get("error") else ""), flush=True)
        med = {k: B.stats([r.get("ms") for r in runs[k] if not r.get("error")]) for k in kinds}
        second, stack_warm = [], []
        for i in range(self.offline_loads):
            r = self.second_visit_offline()
            second.append(r)
            print(f"  deploy second visit offline {i + 1}/{self.offline_loads} {B.fmt(r.get('ms'), 0)} ms"
                  + (f"  ({r['error']})" if r.get("error") else ""), flush=True)
            r = self.stack_visits()
            stack_warm.append(r)
            print(f"  deploy stack floor, three visits {i + 1}/{self.offline_loads} "
                  + " / ".join(B.fmt(ms, 0) for ms in r["ms"]) + " ms"
                  + (f"  ({r['error']})" if r.get("error") else ""), flush=True)
        throttled = []
        for i in range(self.throttled_loads):
            r = self.load("app", throttle=True)
            throttled.append(r)
            print(f"  deploy 10 Mbps load {i + 1}/{self.throttled_loads} {B.fmt(r.get('ms'), 0)} ms", flush=True)

        def wire(rs):
            good = [r for r in rs if not r.get("error") and r.get("wire")]
            return B.stats([r["wire"]["bytes"] for r in good])["median"]

        app_bytes, official_bytes, compiled_bytes = wire(runs["app"]), wire(runs["official"]), wire(runs["compiled"])
        sec = B.stats([r.get("ms") for r in second if not r.get("error")])
        # Each second visit against its own first visit, a moment earlier in the same context
        # (a paired ratio: on a shared machine the load changes between the parts of a run).
        paired = B.stats([B.ratio(r.get("ms"), r.get("first_ms")) for r in second if not r.get("error")])
        third = B.stats([r.get("third_ms") for r in second if not r.get("error") and r.get("third_ms")])
        paired3 = B.stats([B.ratio(r.get("third_ms"), r.get("first_ms")) for r in second
                           if not r.get("error") and r.get("third_ms")])
        stack_third = B.stats([r["ms"][2] for r in stack_warm if not r.get("error")])
        whole_first = B.stats([r.get("first_visit_bytes") for r in second if r.get("first_visit_bytes")])
        thr = B.stats([r.get("ms") for r in throttled if not r.get("error")])
        thr_bytes = wire(throttled)
        # After the last big byte: what is left is the browser's and Python's start-up work.
        tails, last_bytes = [], []
        for r in throttled:
            if not r.get("error") and r.get("waterfall") and r.get("ms") is not None:
                last_bytes.append(max(w["end"] for w in r["waterfall"]))
                tails.append(r["ms"] - last_bytes[-1])
        tail, last_byte = B.stats(tails), B.stats(last_bytes)
        floor_ms = None if thr_bytes is None else thr_bytes * 8 / (MBPS * 1e6) * 1000
        a = med["app"]["median"]
        ratios = {
            "site/bare_official": B.ratio(a, med["official"]["median"]),
            "site/bare_compiled": B.ratio(a, med["compiled"]["median"]),
            "file/bare_official": B.ratio(med["offline"]["median"], med["official"]["median"]) if "offline" in kinds else None,
            "single_floor/bare_official": B.ratio(med["single_floor"]["median"], med["official"]["median"]) if "offline" in kinds else None,
            "file/single_floor": B.ratio(med["offline"]["median"], med["single_floor"]["median"]) if "offline" in kinds else None,
            "compiled/official floor": B.ratio(med["compiled"]["median"], med["official"]["median"]),
            "stack/official floor": B.ratio(med["stack"]["median"], med["official"]["median"]),
            "site/stack floor": B.ratio(a, med["stack"]["median"]),
            "offline_second/cold": B.ratio(sec["median"], a),
            "offline_second/own_first_visit": paired["median"],
            "offline_third/cold": B.ratio(third["median"], a),
            "offline_third/own_first_visit": paired3["median"],
            "stack_third/cold": B.ratio(stack_third["median"], a),
            "throttled/transfer_floor": B.ratio(thr["median"], floor_ms),
        }
        boots = sum(1 for r in second if not r.get("error") and r.get("ms") is not None)
        rows = [
            ["dist/site served (gzip), cold first frame", B.fmt(a, 0), B.fx(ratios["site/bare_official"]),
             B.fmt(app_bytes and app_bytes / 1e6, 2)],
            ["bare Pyodide + numpy, official files (floor)", B.fmt(med["official"]["median"], 0), "1.00x",
             B.fmt(official_bytes and official_bytes / 1e6, 2)],
            ["bare Pyodide + numpy, the app's runtime (" + (res["runtime"] or "?") + ")",
             B.fmt(med["compiled"]["median"], 0), B.fx(ratios["compiled/official floor"]),
             B.fmt(compiled_bytes and compiled_bytes / 1e6, 2)],
            ["PyScript worker + numpy, the app's runtime (the stack's floor: its preloads and start, no engine)",
             B.fmt(med["stack"]["median"], 0), B.fx(ratios["stack/official floor"]),
             B.fmt(wire(runs["stack"]) and wire(runs["stack"]) / 1e6, 2)],
            ["  dist/site against the stack's floor", "", B.fx(ratios["site/stack floor"]), ""],
        ]
        if "offline" in kinds:
            rows.append(["dist/swarm-lab.html from file://, first frame", B.fmt(med["offline"]["median"], 0),
                         B.fx(ratios["file/bare_official"]), f"{OFFLINE.stat().st_size / 1e6:.1f} (file)"])
            rows.append(["the same file without the app (its floor: PyScript + numpy on the page's thread)",
                         B.fmt(med["single_floor"]["median"], 0), B.fx(ratios["single_floor/bare_official"]),
                         f"{single_floor.OUT.stat().st_size / 1e6:.1f} (file)"])
            rows.append(["  the single file against its floor", "", B.fx(ratios["file/single_floor"]), ""])
        else:
            rows.append(["dist/swarm-lab.html from file://", "not built", "", "run `make offline`"])
        rows.append([f"second visit, network off (service worker): {boots}/{len(second)} booted", B.fmt(sec["median"], 0),
                     f"{B.fx(ratios['offline_second/cold'])} cold", "0 (offline)"])
        rows.append(["  the same, against its own first visit (paired)", "", f"{B.fx(paired['median'])} first", ""])
        rows.append(["  its first visit until the offline copy is complete (boot + install)", "", "",
                     B.fmt(whole_first["median"] and whole_first["median"] / 1e6, 2)])
        rows.append(["third visit, network off (compiled wasm from V8's code cache)", B.fmt(third["median"], 0),
                     f"{B.fx(ratios['offline_third/cold'])} cold", "0 (offline)"])
        rows.append(["  the same, against its own first visit (paired)", "", f"{B.fx(paired3['median'])} first", ""])
        rows.append(["the stack's floor, third visit (HTTP cache, compiled wasm cached): the least any visit costs",
                     B.fmt(stack_third["median"], 0), f"{B.fx(ratios['stack_third/cold'])} cold", ""])
        rows.append([f"{MBPS:g} Mbps / {RTT_MS:g} ms RTT, cold, first frame", B.fmt(thr["median"], 0),
                     f"{B.fx(ratios['throttled/transfer_floor'])} floor", B.fmt(thr_bytes and thr_bytes / 1e6, 2)])
        notes = [f"transfer floor at {MBPS:g} Mbps = wire bytes / bandwidth = {B.fmt(floor_ms, 0)} ms; the link is "
                 + ("emulated by the server (tools/serve.py --throttle), so the engine worker's requests are slowed too"
                    if self.slow_site else "DevTools emulation on the page's target (the worker's own requests are NOT slowed)"),
                 f"{MBPS:g} Mbps: the last big byte arrived {B.fmt(last_byte['median'], 0)} ms "
                 f"after navigation (median); the first frame followed {B.fmt(tail['median'], 0)} ms later (start-up work: "
                 f"compare the cold unthrottled first frame, {B.fmt(a, 0)} ms)",
                 f"app runtime: {res['runtime']} (assets/vendor/VENDORED.json); the floors load the same wasm",
                 "wire bytes = what the gzip server sent for the load (headers included), also what workers fetch"]
        self.b.tab(f"7. Deploy: cold loads (new context: empty HTTP cache), ms, {self.loads} interleaved loads each",
                   ["case", "median ms", "ratio", "MB on the wire"], rows, notes)
        # bytes by file for one cold app load
        good = [r for r in runs["app"] if not r.get("error") and r.get("wire")]
        if good:
            by = sorted(good[0]["wire"]["by_path"].items(), key=lambda kv: -kv[1])
            total = sum(v for _, v in by)
            top = [[p, B.fmt(v / 1e3, 1), f"{100 * v / total:.1f}%"] for p, v in by[:8]]
            top.append([f"(other {max(len(by) - 8, 0)} requests)", B.fmt(sum(v for _, v in by[8:]) / 1e3, 1),
                        f"{100 * sum(v for _, v in by[8:]) / total:.1f}%"])
            self.b.tab("7b. Bytes on the wire of one cold dist/site load, gzip host (kB)", ["file", "kB", "share"], top,
                       [f"{len(by)} requests, {total / 1e6:.2f} MB"])
        wf = next((r.get("waterfall") for r in throttled if r.get("waterfall")), None)
        if wf:
            self.b.tab(f"7c. Request waterfall of one {MBPS:g} Mbps load: big files the page fetched (ms since navigation)",
                       ["file", "requested", "done", "kB"],
                       [[w["name"][:60], B.fmt(w["start"], 0), B.fmt(w["end"], 0), B.fmt(w["bytes"] / 1e3, 0)] for w in wf],
                       ["a file requested late cannot use the bandwidth from t = 0 (preload / modulepreload would start it early)"])
        res.update(median=med, ratios=ratios, runs=runs, second_visit=second, stack_visits=stack_warm, offline_third_paired=paired3, throttled=throttled,
                   throttled_tail_ms=tail, throttled_last_byte_ms=last_byte, offline_paired=paired,
                   wire={"app": app_bytes, "first_visit_with_offline_copy": whole_first["median"], "official_floor": official_bytes, "compiled_floor": compiled_bytes,
                         "throttled": thr_bytes}, transfer_floor_ms=floor_ms)
        return res


def part_deploy(bench: B.Bench) -> None:
    args = bench.args
    d = DeployBench(bench, loads=args.deploy_loads, offline_loads=args.offline_loads,
                    throttled_loads=args.throttled_loads, throttle_via=getattr(args, "throttle_via", "server"))
    try:
        bench.results["deploy"] = d.run()
    finally:
        d.close()


def main(argv=None) -> int:
    args = B.parse_args(list(argv or []) + ["--parts", "deploy"])
    if args.json == str(ROOT / "dist" / "bench" / "browser.json"):
        args.json = str(ROOT / "dist" / "bench" / "deploy.json")
    return B.Bench(args).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
