"""A loopback HTTP object store with per-request latency, for benchmarks/latency_bench.py.

Serves a directory read-only over HTTP/1.1 (keep-alive), like an object store's HTTP face:
GET and HEAD with single `Range: bytes=a-b`, `bytes=a-` and `bytes=-n` (206), 404 for a missing
key. Every request waits `--latency-ms` before its first byte (time to first byte of an object
store) and, with `--mbps`, the body is paced to that bandwidth per connection.

  python benchmarks/latency_server.py DIR [--port 0] [--latency-ms 20] [--mbps 0] [--s3-bucket B]

With --s3-bucket B it also answers as a path-style S3 endpoint: GET/HEAD /B/KEY serve DIR/KEY
(the SDKs' query parameters and signatures are ignored), so `s3://B/KEY?endpoint=...` reads DIR.

Prints `PORT <n>` on stdout once listening.
"""
import argparse
import http.server
import os
import pathlib
import re
import sys
import threading
import time

RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


def handler(root, latency, mbps, counter, bucket=None):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _resolve(self):
            rel = self.path.split("?", 1)[0].lstrip("/")
            if bucket is not None:  # S3 path style: /BUCKET/KEY
                if not rel.startswith(bucket + "/"):
                    return None
                rel = rel[len(bucket) + 1:]
            path = (root / rel).resolve()
            if root not in path.parents and path != root:
                return None
            return path if path.is_file() else None

        def _serve(self, body):
            with counter["lock"]:
                counter["requests"] += 1
                counter["in_flight"] += 1
                counter["peak_in_flight"] = max(counter["peak_in_flight"], counter["in_flight"])
            try:
                time.sleep(latency)
                path = self._resolve()
                if path is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                size = path.stat().st_size
                start, end, status = 0, size, 200
                rng = self.headers.get("Range")
                if rng:
                    m = RANGE.match(rng.strip())
                    if not m or (not m.group(1) and not m.group(2)):
                        self.send_response(416)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    if not m.group(1):
                        start = max(0, size - int(m.group(2)))
                    else:
                        start = int(m.group(1))
                        end = min(size, int(m.group(2)) + 1) if m.group(2) else size
                    if start >= size or start >= end:
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{size}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    status = 206
                self.send_response(status)
                self.send_header("Content-Length", str(end - start))
                self.send_header("Accept-Ranges", "bytes")
                if status == 206:
                    self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
                if bucket is not None:  # S3 clients (tensorstore) require an ETag
                    st = path.stat()
                    self.send_header("ETag", f'"{st.st_size:x}-{st.st_mtime_ns:x}"')
                self.end_headers()
                if not body:
                    return
                with open(path, "rb") as f:
                    f.seek(start)
                    left = end - start
                    step = 1 << 20
                    while left > 0:
                        block = f.read(min(step, left))
                        t0 = time.perf_counter()
                        self.wfile.write(block)
                        left -= len(block)
                        if mbps:
                            wait = len(block) / (mbps * 1e6) - (time.perf_counter() - t0)
                            if wait > 0:
                                time.sleep(wait)
            finally:
                with counter["lock"]:
                    counter["in_flight"] -= 1

        def do_GET(self):
            self._serve(True)

        def do_HEAD(self):
            self._serve(False)

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--mbps", type=float, default=0, help="per-connection bandwidth, MB/s (0: unlimited)")
    parser.add_argument("--s3-bucket", help="serve DIR as this bucket, S3 path style (/BUCKET/KEY)")
    args = parser.parse_args()
    counter = {"lock": threading.Lock(), "requests": 0, "in_flight": 0, "peak_in_flight": 0}
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", args.port),
        handler(pathlib.Path(args.root).resolve(), args.latency_ms / 1000, args.mbps, counter,
                args.s3_bucket))
    server.daemon_threads = True
    server.request_queue_size = 256
    print(f"PORT {server.server_address[1]}", flush=True)
    # "stats" on stdin prints request counters (the benchmark reads peak requests in flight)
    def control():
        for line in sys.stdin:
            if line.strip() == "stats":
                with counter["lock"]:
                    print(f"STATS {counter['requests']} {counter['peak_in_flight']}", flush=True)
                    counter["requests"] = 0
                    counter["peak_in_flight"] = 0
        os._exit(0)
    threading.Thread(target=control, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
