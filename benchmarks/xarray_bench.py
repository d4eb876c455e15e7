"""xarray through zaro beside xarray reading the store itself, near and far (issue 42).

  .venv/bin/python benchmarks/xarray_bench.py [--rtt-ms 0 20 100] [--repeat 7] [--warmup 10]
                                              [--server-warmup 300]

The store: benchmarks/data/era5_client.zarr, ERA5-like, written by xarray (240 hourly steps x 181
x 360, float32 t2m with NaNs, packed int16 msl, string coordinates; chunks (24, 181, 360)):
    /usr/bin/python3 testdata/xarray_client/generate_era5.py --full benchmarks/data/era5_client.zarr

Two readers, each in a process of its own, run alternately, pass by pass:
- zaro: `./zaro serve STORE` next to the store; the client (this .venv: zaro_client, xarray;
  --zaro-python for another, such as one over Debian's xarray, so that both readers run the same
  xarray) opens it with xr.open_dataset(client, engine="zaro"); far away its reads of numbers
  come through the server's HTTP door (`serve --http-port`, behind the same delay;
  --flight-only: everything over Flight);
- xarray: Debian's python3 with xarray and zarr-python 2 (apt: python3-xarray python3-zarr
  python3-fsspec python3-aiohttp), xr.open_zarr(STORE) on the local path at rtt 0, and
  xr.open_zarr("http://...") through fsspec + aiohttp from a plain HTTP server over the store
  (benchmarks/latency_server.py, no latency of its own) at rtt > 0.
At rtt > 0 each client reaches its server through a TCP proxy here that holds every byte for
rtt/2 in each direction (the kernel has no netem: latency is shaped in user space), so a
request and its reply pay one round trip, as across a network; the servers sit by the store.

Operations (median seconds of --repeat passes after --warmup untimed ones, each in a fresh open): open (the dataset's
metadata and index coordinates), open + load t2m (62 MB), open + a small selection (6 x 31 x 41
of t2m), and list indexing: isel(time=[0, 239], latitude=[0, 90, 180]) of t2m, with the bytes
that crossed the link (the proxy counts them; at rtt 0 the zaro server's stream_body_bytes).
Prints one JSON line per rtt and a markdown table at the end.

The server is warmed first, as one that has been serving for a while is: --server-warmup passes
of every operation by a client of its own beside it (one on Flight with shared memory, one with
the HTTP door), before any reader is timed. A JVM compiles its code while it runs: over the
first few hundred requests its compiler threads took 5-16 ms of CPU per open + small selection
(`/proc/PID/task`, 2026-11-29), on a machine whose 2 cores both readers share. 0 measures a
server that has served only the readers' own --warmup passes.
"""
import argparse
import collections
import json
import pathlib
import re
import socket
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
STORE = HERE / "data" / "era5_client.zarr"
DEBIAN_PYTHON = "/usr/bin/python3"

WORKER = r'''
import json, sys, time, statistics
import numpy as np
import xarray as xr
kind, url, repeat, warmup, http = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[5]), sys.argv[6]
if kind == "zaro":
    import zaro_client
    # behind the shaped link the server is on this machine all the same: keep the values on the
    # link (no shared-memory file), as a server across a network would have to
    client = zaro_client.connect(url, shared_memory=sys.argv[4] == "near", http=None if http == "-" else http)
def open_():
    if kind == "zaro":
        return xr.open_dataset(client, engine="zaro")
    return xr.open_zarr(url)
def timed(fn):
    t = time.perf_counter(); fn(); return time.perf_counter() - t
ops = {
    "open": lambda: open_(),
    "open_load": lambda: open_().t2m.values,
    "open_small": lambda: open_().t2m.isel(time=slice(100, 106), latitude=slice(50, 81),
                                           longitude=slice(100, 141)).values,
    "open_list": lambda: open_().t2m.isel(time=[0, 239], latitude=[0, 90, 180]).values,
}
failed = {}
for name, fn in ops.items():  # warm-up passes: imports, caches, and the server's JIT
    try:
        for _ in range(warmup):
            fn()
    except Exception as e:  # an operation this reader cannot do is reported, not timed
        failed[name] = f"{type(e).__name__}: {e}"[:200]
for line in sys.stdin:  # one pass a line, so the two readers alternate
    op = line.strip()
    if not op:
        break
    if op in failed:
        print(json.dumps({"op": op, "seconds": float("nan"), "error": failed[op]}), flush=True)
    else:
        print(json.dumps({"op": op, "seconds": timed(ops[op])}), flush=True)
'''


class DelayProxy:
    """A TCP proxy that forwards every byte rtt/2 after it arrived, in each direction, and counts
    the bytes it forwards from the server to the client. Two threads per direction on blocking
    sockets, which let go of the GIL while they wait, receiving into buffers the proxy reuses: an
    asyncio proxy capped a 62 MB read at about 250 MB/s even with no delay, and one that received
    into a fresh bytes object each time at about 420 MB/s (148 ms against 27 ms without it), so
    both measured themselves rather than the latency. Through this one: 62 MB in about 50 ms at
    rtt 0 (benchmarks/README.md, "xarray open_zarr")."""

    CHUNK = 256 << 10  # one receive at most
    MAX_CHUNKS = 1024  # 256 MiB held at most, all connections together; a receiver waits beyond

    def __init__(self, target_port, rtt_ms):
        self.target_port = target_port
        self.delay = rtt_ms / 2000.0
        self.down_bytes = 0
        self._lock = threading.Lock()
        self._free = []  # buffers to receive into, made as needed and reused
        self._made = 0
        self._returned = threading.Condition(self._lock)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _buffer(self):
        with self._lock:
            while not self._free and self._made >= self.MAX_CHUNKS:
                self._returned.wait()
            if self._free:
                return self._free.pop()
            self._made += 1
        return bytearray(self.CHUNK)

    def _give_back(self, buffer):
        with self._lock:
            self._free.append(buffer)
            self._returned.notify()

    def _accept(self):
        while True:
            client, _ = self._listener.accept()
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            for s in (client, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._pipe(client, upstream, False)
            self._pipe(upstream, client, True)

    def _pipe(self, src, dst, down):
        pending = collections.deque()
        ready = threading.Condition()

        def receive():
            while True:
                buffer = self._buffer()
                try:
                    n = src.recv_into(buffer)
                except OSError:
                    n = 0
                with ready:
                    pending.append((time.monotonic() + self.delay, buffer, n))
                    ready.notify()
                if not n:
                    return

        def send():
            try:
                while True:
                    with ready:
                        while not pending:
                            ready.wait()
                        due, buffer, n = pending.popleft()
                    wait = due - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                    if not n:
                        self._give_back(buffer)
                        dst.shutdown(socket.SHUT_WR)
                        return
                    try:
                        dst.sendall(memoryview(buffer)[:n])
                    finally:
                        self._give_back(buffer)
                    if down:
                        with self._lock:
                            self.down_bytes += n
            except OSError:  # the other side is gone: what is still queued goes back unsent
                while True:
                    with ready:
                        while not pending:
                            ready.wait()
                        _, buffer, n = pending.popleft()
                    self._give_back(buffer)
                    if not n:
                        break
            finally:
                try:
                    src.close()
                except OSError:
                    pass

        threading.Thread(target=receive, daemon=True).start()
        threading.Thread(target=send, daemon=True).start()


def start_line(cmd, pattern, **kwargs):
    """Starts cmd and returns (process, the first stdout line containing pattern)."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         **kwargs)
    for line in p.stdout:
        if pattern in line:
            return p, line
    raise RuntimeError(f"{cmd[0]} ended before printing {pattern!r}")


def worker(python, kind, url, repeat, where, warmup, http=None, env=None):
    return subprocess.Popen([python, "-c", WORKER, kind, url, str(repeat), where, str(warmup), http or "-"],
                            stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)


def ask(proc, op):
    proc.stdin.write(op + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())["seconds"]


def sent(client):
    """The bytes the server has handed over: over the wire and in shared-memory files."""
    stats = client.stats()
    return stats["stream_body_bytes"] + stats.get("shared_memory_bytes", 0)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def run(rtt, repeat, warmup, zaro_port, http_port, zaro_python=sys.executable, zaro_http_port=None):
    stats_client = None
    zaro_http = None
    links = {}  # each reader's proxies, which count the bytes that reach it
    if rtt:
        zproxy, hproxy = DelayProxy(zaro_port, rtt), DelayProxy(http_port, rtt)
        links = {"zaro": [zproxy], "xarray": [hproxy]}
        zaro_url = f"grpc://127.0.0.1:{zproxy.port}"
        direct_url = f"http://127.0.0.1:{hproxy.port}/"
        if zaro_http_port:  # zaro's HTTP door behind the same delay
            zhproxy = DelayProxy(zaro_http_port, rtt)
            links["zaro"].append(zhproxy)
            zaro_http = f"http://127.0.0.1:{zhproxy.port}"
    else:
        zaro_url = f"grpc://127.0.0.1:{zaro_port}"
        direct_url = str(STORE)
        import zaro_client
        stats_client = zaro_client.connect(zaro_url)
    where = "far" if rtt else "near"
    procs = {"zaro": worker(zaro_python, "zaro", zaro_url, repeat, where, warmup, zaro_http),
             "xarray": worker(DEBIAN_PYTHON, "xarray", direct_url, repeat, where, warmup)}
    out = {}
    for op in ["open", "open_load", "open_small", "open_list"]:
        times = {k: [] for k in procs}
        for _ in range(repeat):
            for kind, proc in procs.items():
                times[kind].append(ask(proc, op))
        out[op] = {k: median(v) for k, v in times.items()}
    # the bytes of one list selection, over the links (or the server's own count at rtt 0)
    def down(kind):
        return sum(p.down_bytes for p in links[kind])

    for kind, proc in procs.items():
        before = down(kind) if rtt else (sent(stats_client) if kind == "zaro" else None)
        ask(proc, "open_list")
        if rtt:
            out.setdefault("list_bytes", {})[kind] = down(kind) - before
        elif kind == "zaro":
            out.setdefault("list_bytes", {})[kind] = sent(stats_client) - before
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rtt-ms", type=int, nargs="+", default=[0, 20, 100])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--zaro-python", default=sys.executable,
                        help="the Python that runs the zaro reader (default: this one). Debian's xarray "
                             "on both sides: /usr/bin/python3 -m venv --system-site-packages V, then "
                             "V/bin/pip install pyarrow and --no-deps ./clients/python")
    parser.add_argument("--flight-only", action="store_true",
                        help="far away, the zaro reader fetches everything over Flight (by default its "
                             "reads of numbers come through the server's HTTP door, --http-port)")
    parser.add_argument("--launcher", default=str(ROOT / "zaro"),
                        help="the zaro command that serves the store (another build's, for A/B runs)")
    parser.add_argument("--server-warmup", type=int, default=300,
                        help="untimed passes of each operation, before the readers start, by clients of the "
                             "server's own beside it: a served store is a long-running process")
    parser.add_argument("--warmup", type=int, default=10,
                        help="untimed passes of each operation by each reader first (a served store "
                             "is a long-running process: 1 measures the server's first requests)")
    args = parser.parse_args()
    if not STORE.exists():
        sys.exit(f"no {STORE}: run /usr/bin/python3 testdata/xarray_client/generate_era5.py --full {STORE}")
    zaro, serving = start_line([args.launcher, "serve", str(STORE), "--port", "0", "--http-port", "0"], "serving")
    door = re.search(r"http://127\.0\.0\.1:(\d+)", serving)
    while door is None:  # the HTTP door's line follows the banner's first
        door = re.search(r"http://127\.0\.0\.1:(\d+)", zaro.stdout.readline() or "http://127.0.0.1:0")
    http, line = start_line([sys.executable, str(HERE / "latency_server.py"), str(STORE), "--latency-ms", "0"], "PORT")
    try:
        zaro_port = int(re.search(r"grpc://127\.0\.0\.1:(\d+)", serving).group(1))
        http_port = int(line.split()[1])
        if args.server_warmup:
            near = f"grpc://127.0.0.1:{zaro_port}"
            for where, door_url in (("near", None), ("far", f"http://127.0.0.1:{door.group(1)}")):
                w = worker(args.zaro_python, "zaro", near, 0, where, args.server_warmup, door_url)
                w.stdin.close()
                w.wait()
        rows = {}
        for rtt in args.rtt_ms:
            rows[rtt] = run(rtt, args.repeat, args.warmup, zaro_port, http_port, args.zaro_python,
                            None if args.flight_only else int(door.group(1)))
            print(json.dumps({"rtt_ms": rtt, **rows[rtt]}), flush=True)
        print("\n| rtt | operation | xarray (s) | zaro (s) | xarray / zaro |\n|---|---|---|---|---|")
        for rtt, ops in rows.items():
            for op, t in ops.items():
                if op == "list_bytes":
                    print(f"| {rtt} ms | list indexing, bytes sent | {t.get('xarray', '-')} | {t['zaro']} | |")
                else:
                    print(f"| {rtt} ms | {op} | {t['xarray']:.4f} | {t['zaro']:.4f} | {t['xarray'] / t['zaro']:.2f} |")
    finally:
        for p in (zaro, http):
            p.terminate()
            p.wait()

if __name__ == "__main__":
    main()
