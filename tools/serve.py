#!/usr/bin/env python3
"""A small static server for Swarm Lab (standard library only).

* Correct MIME types for .wasm, .mjs, .whl, .toml and .py.
* ``Cache-Control: no-cache`` so edits show up on reload.
* Optional ``--csp "..."`` adds a Content-Security-Policy header (tests use it to
  prove the app boots under the policy the README documents).
* Optional ``--gzip`` compresses text, JavaScript, JSON and WebAssembly for clients that
  accept it, as static hosts (GitHub Pages) do, so that benchmarks see the bytes a
  student's browser downloads.  Zip archives and wheels go as they are (already
  compressed; hosts do not compress them either).
* Binds 127.0.0.1 by default and prints the URL.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import os
import threading
import socketserver
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


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME}
    csp: str | None = None
    quiet = False
    gzip = False

    def send_head(self):
        if not self.gzip or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if not self.path.split("?")[0].endswith("/") or not os.path.isfile(index):
                return super().send_head()
            path = index
        ctype = self.guess_type(path)
        if not os.path.isfile(path) or not ctype.startswith(COMPRESSIBLE):
            return super().send_head()
        body = gzipped(path)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        if self.csp:
            self.send_header("Content-Security-Policy", self.csp)
        super().end_headers()

    def log_message(self, fmt, *args):
        if not self.quiet:
            super().log_message(fmt, *args)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_server(root: Path, host: str = "127.0.0.1", port: int = 8000, csp: str | None = None, quiet: bool = False,
                gzip: bool = False):
    handler = type("SwarmHandler", (Handler,), {"csp": csp, "quiet": quiet, "gzip": gzip})
    return Server((host, port), functools.partial(handler, directory=str(root)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Serve Swarm Lab as static files.")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--root", default=str(ROOT), help="folder to serve (default: the repo root)")
    ap.add_argument("--csp", default=None, help="send this Content-Security-Policy header")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--gzip", action="store_true", help="gzip text, JS, JSON and wasm as static hosts do")
    args = ap.parse_args(argv)
    try:
        httpd = make_server(Path(args.root), args.host, args.port, args.csp, args.quiet, args.gzip)
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
