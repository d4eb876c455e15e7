"""A loopback HTTP object store with per-request latency, for benchmarks/latency_bench.py.

Serves a directory read-only over HTTP/1.1 (keep-alive), like an object store's HTTP face:
GET and HEAD with single `Range: bytes=a-b`, `bytes=a-` and `bytes=-n` (206), 404 for a missing
key. Every request waits `--latency-ms` before its first byte (time to first byte of an object
store) and, with `--mbps`, the body is paced to that bandwidth per connection.

One asyncio event loop serves every connection, and bodies go out with sendfile(2): a real object
store's CPU is not on the client's machine, so this server spends as little of the shared cores
as it can (a thread per connection under the GIL slowed both readers once they kept 100+ requests
in flight).

  python benchmarks/latency_server.py DIR [--port 0] [--latency-ms 20] [--mbps 0] [--s3-bucket B]
      [--tls-cert CERT --tls-key KEY]

With --s3-bucket B it also answers as an S3 endpoint: GET/HEAD /B/KEY (path style), or /KEY with
`Host: B.anything` (virtual-host style), serve DIR/KEY (the SDKs' query parameters and signatures
are ignored), so `s3://B/KEY?endpoint=...` reads DIR.

With --tls-cert/--tls-key it serves https (testdata/tls/loopback.crt and .key: a certificate for
127.0.0.1 that only benchmark and test clients told to trust it accept); bodies then go out through
the TLS layer instead of sendfile.

Prints `PORT <n>` on stdout once listening; "stats" on stdin prints `STATS <requests> <peak in
flight>` since the last call.
"""
import argparse
import asyncio
import os
import pathlib
import re
import ssl
import sys
import threading
import urllib.parse

RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.in_flight = 0
        self.peak = 0


def resolve(root, target, bucket, host=""):
    rel = urllib.parse.unquote(target.split("?", 1)[0]).lstrip("/")
    if bucket is not None and host.startswith(bucket + "."):  # S3 virtual-host style: BUCKET.host/KEY
        pass
    elif bucket is not None:  # S3 path style: /BUCKET/KEY
        if not rel.startswith(bucket + "/"):
            return None
        rel = rel[len(bucket) + 1:]
    path = (root / rel).resolve()
    if root not in path.parents and path != root:
        return None
    return path if path.is_file() else None


def head(status, reason, fields):
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in fields] + ["", ""]
    return "\r\n".join(lines).encode("latin-1")


async def serve(reader, writer, root, latency, mbps, counter, bucket):
    loop = asyncio.get_running_loop()
    try:
        while True:
            try:
                request = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            lines = request.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            if int(headers.get("content-length", "0") or 0):
                await reader.readexactly(int(headers["content-length"]))
            with counter.lock:
                counter.requests += 1
                counter.in_flight += 1
                counter.peak = max(counter.peak, counter.in_flight)
            try:
                await asyncio.sleep(latency)
                path = resolve(root, target, bucket, headers.get("host", ""))
                if path is None or method not in ("GET", "HEAD"):
                    writer.write(head(404, "Not Found", [("Content-Length", 0)]))
                    await writer.drain()
                    continue
                st = path.stat()
                size = st.st_size
                start, end, status = 0, size, 200
                rng = headers.get("range")
                if rng:
                    m = RANGE.match(rng)
                    if not m or (not m.group(1) and not m.group(2)):
                        writer.write(head(416, "Range Not Satisfiable", [("Content-Length", 0)]))
                        await writer.drain()
                        continue
                    if not m.group(1):
                        start = max(0, size - int(m.group(2)))
                    else:
                        start = int(m.group(1))
                        end = min(size, int(m.group(2)) + 1) if m.group(2) else size
                    if start >= size or start >= end:
                        writer.write(head(416, "Range Not Satisfiable",
                                          [("Content-Range", f"bytes */{size}"), ("Content-Length", 0)]))
                        await writer.drain()
                        continue
                    status = 206
                fields = [("Content-Length", end - start), ("Accept-Ranges", "bytes")]
                if status == 206:
                    fields.append(("Content-Range", f"bytes {start}-{end - 1}/{size}"))
                if bucket is not None:  # S3 clients (tensorstore) require an ETag
                    fields.append(("ETag", f'"{st.st_size:x}-{st.st_mtime_ns:x}"'))
                writer.write(head(status, "Partial Content" if status == 206 else "OK", fields))
                if method == "HEAD":
                    await writer.drain()
                    continue
                with open(path, "rb") as f:
                    if not mbps:
                        await writer.drain()
                        await loop.sendfile(writer.transport, f, start, end - start)
                    else:
                        step = 1 << 20
                        at = start
                        while at < end:
                            n = min(step, end - at)
                            t0 = loop.time()
                            await writer.drain()
                            await loop.sendfile(writer.transport, f, at, n)
                            at += n
                            wait = n / (mbps * 1e6) - (loop.time() - t0)
                            if wait > 0:
                                await asyncio.sleep(wait)
            finally:
                with counter.lock:
                    counter.in_flight -= 1
    except (ConnectionError, OSError):
        pass  # the client hung up (a hedged request's loser, a cancelled read)
    finally:
        writer.close()


async def main_async(args, counter):
    root = pathlib.Path(args.root).resolve()
    context = None
    if args.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.tls_cert, args.tls_key)
    server = await asyncio.start_server(
        lambda r, w: serve(r, w, root, args.latency_ms / 1000, args.mbps, counter, args.s3_bucket),
        "127.0.0.1", args.port, backlog=1024, ssl=context)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--mbps", type=float, default=0, help="per-connection bandwidth, MB/s (0: unlimited)")
    parser.add_argument("--s3-bucket", help="serve DIR as this bucket, S3 path style (/BUCKET/KEY)")
    parser.add_argument("--tls-cert", help="serve https with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    args = parser.parse_args()
    counter = Counter()

    # "stats" on stdin prints request counters (the benchmark reads peak requests in flight)
    def control():
        for line in sys.stdin:
            if line.strip() == "stats":
                with counter.lock:
                    print(f"STATS {counter.requests} {counter.peak}", flush=True)
                    counter.requests = 0
                    counter.peak = 0
        os._exit(0)
    threading.Thread(target=control, daemon=True).start()
    asyncio.run(main_async(args, counter))


if __name__ == "__main__":
    main()
