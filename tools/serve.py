#!/usr/bin/env python3
"""A small static server for Swarm Lab (standard library only).

* Correct MIME types for .wasm, .mjs, .whl, .toml and .py.
* ``Cache-Control: no-cache`` so edits show up on reload (``--cache max-age=600`` sends what
  GitHub Pages sends instead; the deploy benchmark uses that).
* Optional ``--csp "..."`` adds a Content-Security-Policy header (tests use it to
  prove the app boots under the policy the README documents).
* Optional ``--gzip`` compresses text, JavaScript, JSON and WebAssembly for clients that
  accept it, as static hosts (GitHub Pages) do, so that benchmarks see the bytes a
  student's browser downloads.  Zip archives and wheels go as they are (already
  compressed; hosts do not compress them either).
* Optional ``--throttle MBPS[:RTT_MS]`` (e.g. ``10:40``) limits the server to that
  bandwidth, shared by all connections, and adds one round trip of latency before each
  response.  It slows everything this server sends, whoever asks: the page, its Web
  Workers and its service worker alike (DevTools' network emulation on the page's target
  does not reach a dedicated worker's own requests).  The deploy benchmark uses it.
* Binds 127.0.0.1 by default and prints the URL.
* A browser that drops a download mid-file (a tab closed, a test moving on) ends that
  request quietly; any other error in a request still prints its traceback.
"""

from __future__ import annotations

import argparse
import datetime
import email.utils
import functools
import gzip
import http.server
import io
import os
import threading
import socketserver
import time
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MIME = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".toml": "text/plain; charset=utf-8",
    ".py": "text/x-python; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".css": "text/css",
    ".html": "text/html; charset=utf-8",
}


# What a static host compresses (by Content-Type).
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "application/wasm", "image/svg+xml")
GZIP_LEVEL = 6
_gz_cache: dict[tuple, bytes] = {}
_gz_lock = threading.Lock()


def gzipped(path: str) -> bytes:
    """The gzip of a file, cached by (path, size, mtime)."""
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    with _gz_lock:
        hit = _gz_cache.get(key)
    if hit is None:
        with open(path, "rb") as f:
            hit = gzip.compress(f.read(), compresslevel=GZIP_LEVEL, mtime=0)
        with _gz_lock:
            _gz_cache[key] = hit
    return hit


class Throttle:
    """A shared link: ``mbps`` megabits per second for all connections together, and
    ``rtt_ms`` of latency before each response's first byte.

    Bytes leave in chunks of ``CHUNK``; each chunk is given the next free slot on the link
    (first come, first served), so parallel downloads share the bandwidth as on one
    network connection, and the total time for B bytes is at least B * 8 / bandwidth.
    """

    CHUNK = 16 * 1024

    def __init__(self, mbps: float, rtt_ms: float = 0.0):
        if not mbps > 0:
            raise ValueError("throttle: the bandwidth must be > 0 Mbps")
        self.bytes_per_s = mbps * 1e6 / 8
        self.rtt_s = max(0.0, rtt_ms) / 1000
        self._free_at = 0.0  # time.monotonic() when the link is next idle
        self._lock = threading.Lock()

    @classmethod
    def parse(cls, text: str) -> "Throttle":
        """``"10"`` or ``"10:40"`` (Mbps[:RTT ms])."""
        mbps, _, rtt = str(text).partition(":")
        return cls(float(mbps), float(rtt or 0))

    def send(self, n: int) -> None:
        """Block until ``n`` bytes have had their turn on the link."""
        with self._lock:
            start = max(time.monotonic(), self._free_at)
            self._free_at = start + n / self.bytes_per_s
            done = self._free_at
        delay = done - time.monotonic()
        if delay > 0:
            time.sleep(delay)

    def wait_rtt(self) -> None:
        if self.rtt_s:
            time.sleep(self.rtt_s)


class _ThrottledWriter:
    """The socket's write side, paced by a Throttle."""

    def __init__(self, raw, throttle: Throttle):
        self._raw, self._throttle = raw, throttle

    def write(self, data):
        view = memoryview(data)
        for i in range(0, len(view), Throttle.CHUNK):
            chunk = view[i:i + Throttle.CHUNK]
            self._throttle.send(len(chunk))
            self._raw.write(chunk)
        return len(view)

    def __getattr__(self, name):
        return getattr(self._raw, name)


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME}
    csp: str | None = None
    quiet = False
    gzip = False
    throttle: Throttle | None = None
    cache_control = "no-cache"
    etag: str | None = None  # the entity tag of the file this response sends (set by _send_head)

    def send_response(self, code, message=None):
        if code not in (200, 304):  # an error or a redirect: no file's tag (a keep-alive
            self.etag = None        # connection's handler answers many requests)
        super().send_response(code, message)

    def setup(self):
        super().setup()
        if self.throttle is not None:
            self.wfile = _ThrottledWriter(self.wfile, self.throttle)

    def send_head(self):
        if self.throttle is not None:
            self.throttle.wait_rtt()
        return self._send_head()

    def _file(self) -> str | None:
        """The file this request is answered with (a folder's index.html), or None."""
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if not self.path.split("?")[0].endswith("/") or not os.path.isfile(index):
                return None
            path = index
        return path if os.path.isfile(path) else None

    def _send_head(self):
        path = self._file()
        st = os.stat(path) if path is not None else None  # one look at the file: its tag and time agree
        zipped = (st is not None and self.gzip and "gzip" in self.headers.get("Accept-Encoding", "")
                  and self.guess_type(path).startswith(COMPRESSIBLE))
        self.etag = self._etag(st, zipped) if st is not None else None
        if st is not None and self._not_modified(st.st_mtime):
            # A revalidation (Cache-Control: no-cache) costs one round trip, not the file again.
            self.send_response(304)
            self.send_header("Last-Modified", self.date_time_string(st.st_mtime))
            self.end_headers()
            return None
        # The stdlib's own rule answers 304 for any file no newer than the browser's copy, so an
        # older build served after a newer one (`make run` after previewing dist/site, an
        # `rsync -a` of an earlier build) was never fetched: sw.js above all, whose update is
        # how a browser learns of a new build.  Only an unchanged file is "not modified".
        del self.headers["If-Modified-Since"]
        if not zipped:
            return super().send_head()
        body = gzipped(path)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Last-Modified", self.date_time_string(st.st_mtime))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    @staticmethod
    def _etag(st: os.stat_result, zipped: bool) -> str:
        """A file's version (``st``, its stat) as an entity tag: its modification time in
        nanoseconds and its size (and which encoding: the gzip body is another representation)."""
        return f'"{st.st_mtime_ns:x}-{st.st_size:x}{"-gz" if zipped else ""}"'

    def _not_modified(self, mtime: float) -> bool:
        """The browser's copy is this very file: its If-None-Match names this file's entity tag
        (nanoseconds: a file rewritten within the same second is a new version), or, from a
        browser that has no tag, its If-Modified-Since names exactly this file's time (seconds
        resolution), the time this server sent for it: not an older or a newer file."""
        inm = self.headers.get("If-None-Match")
        if inm is not None:
            tags = [t.strip().removeprefix("W/") for t in inm.split(",")]
            return self.etag in tags or "*" in tags
        ims = self.headers.get("If-Modified-Since")
        if not ims:
            return False
        try:
            when = email.utils.parsedate_to_datetime(ims)
        except (TypeError, IndexError, OverflowError, ValueError):
            return False
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        return int(mtime) == int(when.timestamp())

    def end_headers(self):
        if self.etag:
            self.send_header("ETag", self.etag)
        self.send_header("Cache-Control", self.cache_control)
        if self.csp:
            self.send_header("Content-Security-Policy", self.csp)
        super().end_headers()

    def log_message(self, fmt, *args):
        if not self.quiet:
            super().log_message(fmt, *args)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        """Called inside ``except``: a client that hung up (broken pipe, reset) is normal for
        a page that moves on before a download ends, so it is not reported."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def make_server(root: Path, host: str = "127.0.0.1", port: int = 8000, csp: str | None = None, quiet: bool = False,
                gzip: bool = False, throttle: Throttle | str | None = None, cache: str = "no-cache"):
    if isinstance(throttle, str):
        throttle = Throttle.parse(throttle)
    handler = type("SwarmHandler", (Handler,), {"csp": csp, "quiet": quiet, "gzip": gzip, "throttle": throttle,
                                                "cache_control": cache})
    return Server((host, port), functools.partial(handler, directory=str(root)))


def extend_handler(httpd, mixin: type) -> None:
    """Put ``mixin``'s methods in front of ``httpd``'s request handler (benchmarks add headers
    or count bytes this way); ``mixin`` calls ``super()`` for the usual behaviour."""
    base = httpd.RequestHandlerClass  # functools.partial(handler class, directory=...)
    handler = type(mixin.__name__, (mixin, base.func), {})
    httpd.RequestHandlerClass = functools.partial(handler, *base.args, **base.keywords)


class Background:
    """A server from :func:`make_server` answering from a daemon thread, for tests and
    benchmarks: ``url`` (http://host:port) and ``close()``; also a context manager."""

    def __init__(self, httpd):
        self.httpd = httpd
        host, self.port = httpd.server_address[:2]
        self.url = f"http://{host}:{self.port}"
        threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Serve Swarm Lab as static files.")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--root", default=str(ROOT), help="folder to serve (default: the repo root)")
    ap.add_argument("--csp", default=None, help="send this Content-Security-Policy header")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--gzip", action="store_true", help="gzip text, JS, JSON and wasm as static hosts do")
    ap.add_argument("--throttle", default=None, metavar="MBPS[:RTT_MS]",
                    help="limit the bandwidth (shared by all connections) and add latency, e.g. 10:40")
    ap.add_argument("--cache", default="no-cache", metavar="CACHE_CONTROL",
                    help="the Cache-Control header (default no-cache; GitHub Pages sends max-age=600)")
    args = ap.parse_args(argv)
    try:
        httpd = make_server(Path(args.root), args.host, args.port, args.csp, args.quiet, args.gzip,
                            throttle=args.throttle, cache=args.cache)
    except ValueError as exc:
        print(f"serve: bad --throttle {args.throttle!r}: {exc}. Use MBPS or MBPS:RTT_MS, e.g. 10:40.", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"serve: cannot listen on {args.host}:{args.port}: {exc}. Try `make run PORT=8001`.", file=sys.stderr)
        return 1
    print(f"\n  Swarm Lab is running at  http://{args.host}:{httpd.server_address[1]}/\n  (Ctrl+C stops it)\n", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
