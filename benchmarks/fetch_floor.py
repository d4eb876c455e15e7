"""The fetch floor of a remote read: the same GETs at the same concurrency, bodies thrown away.

latency_bench.py's anchor for "how fast could any reader be over this link": a minimal HTTP/1.1
client (one asyncio loop, raw non-blocking sockets, keep-alive, one request at a time per
connection, bodies received into one scratch buffer and dropped) fetches every object under a
dataset's directory whole (what a read of everything fetches: for zstd_64 its 512 chunk objects,
for sharded_zstd its 8 shards), --concurrency connections at once. Prints one JSON line: the
median wall seconds of --repeat passes (after --warmup), the process CPU seconds per pass, bytes
and requests per pass.

  python benchmarks/fetch_floor.py http://127.0.0.1:PORT/zstd_64_512.zarr DIR [--concurrency 256]

An https URL is fetched over TLS (asyncio streams over the ssl module, OpenSSL underneath),
trusting the certificate file --ca-file names (testdata/tls/loopback.crt for latency_server.py).
"""
import argparse
import asyncio
import json
import pathlib
import resource
import socket
import ssl
import statistics
import time
import urllib.parse


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def fetch_all(host, port, paths, concurrency):
    loop = asyncio.get_running_loop()
    queue = list(reversed(paths))
    scratch = memoryview(bytearray(1 << 20))
    total = 0

    async def worker():
        nonlocal total
        sock = socket.socket()
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await loop.sock_connect(sock, (host, port))
        pending = b""
        try:
            while queue:
                path = queue.pop()
                await loop.sock_sendall(
                    sock, f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode("latin-1"))
                head = pending
                while b"\r\n\r\n" not in head:
                    data = await loop.sock_recv(sock, 65536)
                    if not data:
                        raise ConnectionError(f"closed before the headers of {path}")
                    head += data
                header, pending = head.split(b"\r\n\r\n", 1)
                status = int(header.split(b" ", 2)[1])
                if status != 200:
                    raise RuntimeError(f"HTTP {status} for {path}")
                length = next(int(line.split(b":", 1)[1]) for line in header.split(b"\r\n")[1:]
                              if line.lower().startswith(b"content-length:"))
                left = length - len(pending)
                pending = b""  # bodies here are whole objects: nothing follows them unasked
                while left > 0:
                    n = await loop.sock_recv_into(sock, scratch[:min(left, len(scratch))])
                    if not n:
                        raise ConnectionError(f"closed mid-body of {path}")
                    left -= n
                total += length
        finally:
            sock.close()

    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(paths)))))
    return total


async def fetch_all_tls(host, port, paths, concurrency, context):
    """fetch_all over TLS: the same requests, bodies read in pieces by OpenSSL and dropped."""
    queue = list(reversed(paths))
    total = 0

    async def worker():
        nonlocal total
        reader, writer = await asyncio.open_connection(host, port, ssl=context)
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while queue:
                path = queue.pop()
                writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode("latin-1"))
                header = await reader.readuntil(b"\r\n\r\n")
                status = int(header.split(b" ", 2)[1])
                if status != 200:
                    raise RuntimeError(f"HTTP {status} for {path}")
                left = next(int(line.split(b":", 1)[1]) for line in header.split(b"\r\n")[1:]
                            if line.lower().startswith(b"content-length:"))
                total += left
                while left > 0:
                    data = await reader.read(min(left, 1 << 20))
                    if not data:
                        raise ConnectionError(f"closed mid-body of {path}")
                    left -= len(data)
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(paths)))))
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url", help="the dataset's base URL, http://HOST:PORT/NAME")
    parser.add_argument("dir", help="the dataset's directory, whose files are the objects to GET")
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--ca-file", help="https: the certificate (PEM) to trust")
    args = parser.parse_args()
    context = None
    if args.url.startswith("https:"):
        context = ssl.create_default_context(cafile=args.ca_file)
    u = urllib.parse.urlsplit(args.url)
    root = pathlib.Path(args.dir)
    paths = [u.path.rstrip("/") + "/" + urllib.parse.quote(p.relative_to(root).as_posix())
             for p in sorted(root.rglob("*")) if p.is_file() and p.name not in ("zarr.json", ".zarray",
                                                                                  ".zattrs", ".zgroup")]
    seconds, cpu, nbytes = [], [], 0
    for i in range(args.warmup + args.repeat):
        t0, c0 = time.perf_counter(), cpu_seconds()
        if context is None:
            nbytes = asyncio.run(fetch_all(u.hostname, u.port, paths, args.concurrency))
        else:
            nbytes = asyncio.run(fetch_all_tls(u.hostname, u.port, paths, args.concurrency, context))
        if i >= args.warmup:
            seconds.append(time.perf_counter() - t0)
            cpu.append(cpu_seconds() - c0)
    print(json.dumps({"median_seconds": statistics.median(seconds), "seconds": seconds,
                      "cpu_seconds": cpu, "bytes": nbytes, "requests": len(paths),
                      "concurrency": min(args.concurrency, len(paths))}))


if __name__ == "__main__":
    main()
