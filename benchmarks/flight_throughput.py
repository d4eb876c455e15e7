"""Flight throughput to one pyarrow client on loopback: `./zaro serve` (decoding zstd chunks
per request) beside a pyarrow (C++) Flight server streaming the same values from memory.

  .venv/bin/python benchmarks/flight_throughput.py [--size 512] [--rounds 5] [--table]

Writes (once) benchmarks/data/flight_f32_<size>.zarr: float32 [size, 512, 512] (512 MiB at
size 512), zstd level 1, chunks [64, 128, 128]. Starts both servers, then, round by round
(alternating, so both see the same machine load), fetches every endpoint of the whole array in
the tensor layout with one client and counts the bytes. Prints one JSON line per server (best
and median GB/s, server and client CPU seconds per fetch, zaro's peak memory), the ratio of
the best rates, the median over rounds of each round's ratio to its anchor (steadier on a shared
machine), and `zaro bench` of the same array (decoding alone, no Flight); `--table` adds
zaro's table layout for [0:size/4]. On a loaded machine compare the CPU seconds: they depend
less on what else runs than the rates do.

A minimal Arrow Java Flight server (benchmarks/java/MemoryFlightServer.java, flight-core with
zero-copy writes) streams the same values from memory: the floor of Java's Flight stack.
A second zaro server runs with `--cache-memory` and `--http-port` (issue 22): after its warm-up
every chunk is in its decoded-chunk cache, and its rounds measure a cached repeat do_get, a cached
repeat GET of the same array as an Arrow IPC stream over HTTP (read by pyarrow from urllib's
response), and a cached do_get asking for zstd IPC compression (bytes on the wire from the
server's stream_body_bytes, and the client's time, which includes decompression).

The pyarrow server holds the array as a table of arrow.fixed_shape_tensor rows [512, 512] in
8 MiB record batches (zaro's batch size), one endpoint, and streams it with RecordBatchStream.
"""
import argparse
import json
import os
import pathlib
import re
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"


def dataset(size, contiguous=False):
    import tensorstore as ts
    # contiguous: chunks [16, 512, 512] span the trailing dimensions, so a cached chunk is one
    # C-order run of a block and zaro sends it by reference
    chunks = [16, 512, 512] if contiguous else [64, 128, 128]
    path = DATA / (f"flight_f32_{size}_contiguous.zarr" if contiguous else f"flight_f32_{size}.zarr")
    if (path / "zarr.json").exists():
        return path
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                 "metadata": {"shape": [size, 512, 512], "data_type": "float32",
                              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                              "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                         {"name": "zstd", "configuration": {"level": 1}}],
                              "fill_value": 0}}, create=True, delete_existing=True).result()
    y, x = np.mgrid[0:512, 0:512].astype(np.float32)
    for z in range(0, size, 64):
        block = np.stack([np.sin(x / 50 + k) * np.cos(y / 30) * 100 for k in range(z, z + 64)]).astype(np.float32)
        t[z:z + 64].write(block).result()
    return path


class MemoryServer(fl.FlightServerBase):
    """pyarrow's C++ Flight server over one in-memory table."""

    def __init__(self, table, **kw):
        super().__init__(**kw)
        self.table = table

    def get_flight_info(self, context, descriptor):
        return fl.FlightInfo(self.table.schema, descriptor, [fl.FlightEndpoint(b"all", [])],
                             self.table.num_rows, self.table.nbytes)

    def do_get(self, context, ticket):
        return fl.RecordBatchStream(self.table)


def serve_pyarrow(path):
    import tensorstore as ts
    values = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}).result().read().result()
    tensor = pa.FixedShapeTensorArray.from_numpy_ndarray(np.ascontiguousarray(values))
    rows_per_batch = max(1, (8 << 20) // (values[0].nbytes))
    table = pa.Table.from_arrays([tensor], names=["data"]).combine_chunks()
    table = pa.Table.from_batches(table.to_batches(max_chunksize=rows_per_batch))
    server = MemoryServer(table, location="grpc://127.0.0.1:0")
    print(f"pyarrow serving at grpc://127.0.0.1:{server.port}", flush=True)
    server.serve()


def start(cmd, pattern):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{cmd[0]} exited before serving")
        m = re.search(pattern, line)
        if m:
            return proc, m.group(0)


def cpu_seconds(pid=None):
    """CPU (user + system) seconds used so far by a process (Linux /proc), or by this one."""
    if pid is None:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fetch(client, command):
    """Seconds and bytes to fetch every endpoint of one descriptor, one endpoint after another."""
    t0 = time.perf_counter()
    info = client.get_flight_info(command)
    nbytes = 0
    for e in info.endpoints:
        for chunk in client.do_get(e.ticket):
            nbytes += chunk.data.get_total_buffer_size()
    return time.perf_counter() - t0, nbytes


def start_http(cmd):
    """A zaro server that also serves HTTP: its Flight URI and HTTP base URL."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    uri = None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("zaro serve exited before serving")
        m = re.search(r"grpc://127\.0\.0\.1:\d+", line)
        uri = uri or (m.group(0) if m else None)
        h = re.search(r"HTTP: (http://127\.0\.0\.1:\d+)", line)
        if h:
            return proc, uri, h.group(1)


def fetch_http(url):
    """Seconds and bytes to GET one Arrow IPC stream and read it with pyarrow."""
    import urllib.request
    t0 = time.perf_counter()
    nbytes = 0
    with urllib.request.urlopen(url) as r:
        for batch in pa.ipc.open_stream(r):
            nbytes += batch.get_total_buffer_size()
    return time.perf_counter() - t0, nbytes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--table", action="store_true", help="also zaro's table layout of [0:size/4]")
    parser.add_argument("--zaro", default=str(ROOT / "zaro"), help="the zaro launcher (another build to compare)")
    parser.add_argument("--contiguous", action="store_true",
                        help="chunks [16, 512, 512] (whole trailing dimensions) instead of [64, 128, 128]")
    parser.add_argument("--serve-pyarrow", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_pyarrow:
        serve_pyarrow(args.serve_pyarrow)
        return
    path = dataset(args.size, args.contiguous)
    servers = []  # every server started, stopped at the end (also when a later one fails to start)

    def started(proc_and_address):
        servers.append(proc_and_address[0])
        return proc_and_address

    try:
        zaro, zaro_uri = started(start([args.zaro, "serve", str(path), "--port", "0"], r"grpc://127\.0\.0\.1:\d+"))
        # decoded float32 chunks of 4 MiB, and (a build whose entries keep them) their stored bytes
        cache_mib = 2 * 4 * (args.size // 64) * 16 + 64
        cached, cached_uri, cached_http = started(start_http(
            [args.zaro, "serve", str(path), "--port", "0", "--http-port", "0", "--cache-memory", f"{cache_mib}m",
             "--max-memory", f"{cache_mib + 1024}m"]))
        other, other_uri = started(start([sys.executable, __file__, "--serve-pyarrow", str(path)],
                                         r"grpc://127\.0\.0\.1:\d+"))
        # the Arrow Java floor: flight-core streaming the array from memory (benchmarks/java)
        lib = ROOT / "zaro-cli" / "target"
        java, java_uri = started(start(["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp",
                                        f"{lib / 'classes'}:{lib / 'lib'}/*",
                                        str(ROOT / "benchmarks" / "java" / "MemoryFlightServer.java"), str(path)],
                                       r"grpc://127\.0\.0\.1:\d+"))
        measure(args, path, zaro, zaro_uri, cached, cached_uri, cached_http, other, other_uri, java, java_uri)
    finally:
        for p in servers:
            p.terminate()
            p.wait()


def measure(args, path, zaro, zaro_uri, cached, cached_uri, cached_http, other, other_uri, java, java_uri):
    """The alternating rounds against the started servers, and the summary lines."""
    zc, pc, cc, jc = fl.connect(zaro_uri), fl.connect(other_uri), fl.connect(cached_uri), fl.connect(java_uri)
    tensor = fl.FlightDescriptor.for_command(json.dumps({"array": "/", "slice": "", "layout": "tensor"}))
    zstd = fl.FlightDescriptor.for_command(json.dumps({"array": "/", "slice": "", "layout": "tensor",
                                                       "compression": "zstd"}))
    whole = fl.FlightDescriptor.for_path("data")
    fetch(zc, tensor)  # warm-up: JIT, page cache, connections
    fetch(pc, whole)
    fetch(cc, tensor)  # and fills the cache
    fetch_http(cached_http + "/arrays/")
    fetch(cc, zstd)
    fetch(jc, whole)
    times = {"zaro": [], "pyarrow": [], "java from memory": [], "zaro cached": [], "zaro cached http": [], "zaro cached zstd": []}
    cpu = {name: [0.0, 0.0] for name in times}  # server, client CPU seconds, all rounds
    sizes = {}
    wire = []
    runs = [("zaro", lambda: fetch(zc, tensor), zaro), ("pyarrow", lambda: fetch(pc, whole), other),
            ("java from memory", lambda: fetch(jc, whole), java),
            ("zaro cached", lambda: fetch(cc, tensor), cached),
            ("zaro cached http", lambda: fetch_http(cached_http + "/arrays/"), cached),
            ("zaro cached zstd", lambda: fetch(cc, zstd), cached)]

    def body_bytes():
        return json.loads(list(cc.do_action(fl.Action("stats", b"")))[0].body.to_pybytes())["stream_body_bytes"]

    for _ in range(args.rounds):
        for name, run, proc in runs:
            s0, c0 = cpu_seconds(proc.pid), cpu_seconds()
            w0 = body_bytes() if name == "zaro cached zstd" else 0
            dt, nbytes = run()
            cpu[name][0] += cpu_seconds(proc.pid) - s0
            cpu[name][1] += cpu_seconds() - c0
            if name == "zaro cached zstd":
                wire.append(body_bytes() - w0)
            times[name].append(dt)
            sizes[name] = nbytes
    stats = json.loads(list(zc.do_action(fl.Action("stats", b"")))[0].body.to_pybytes())
    rates = {}
    for name in times:
        rates[name] = sizes[name] / min(times[name]) / 1e9
        line = {"server": name, "layout": "tensor", "bytes": sizes[name], "rounds": args.rounds,
                "best_seconds": round(min(times[name]), 3), "median_seconds": round(statistics.median(times[name]), 3),
                "best_gbps": round(rates[name], 3),
                "median_gbps": round(sizes[name] / statistics.median(times[name]) / 1e9, 3),
                "server_cpu_seconds_per_fetch": round(cpu[name][0] / args.rounds, 3),
                "client_cpu_seconds_per_fetch": round(cpu[name][1] / args.rounds, 3)}
        if name == "zaro":
            line["server_peak_allocator_bytes"] = stats["peak_allocated_bytes"]
        if name == "zaro cached zstd":
            line["body_bytes_on_the_wire"] = wire[-1]
        print(json.dumps(line))
    cstats = json.loads(list(cc.do_action(fl.Action("stats", b"")))[0].body.to_pybytes())
    print(json.dumps({k: v for k, v in cstats.items() if k.startswith("cache_")}))
    print(json.dumps({"zaro cached_over_java_best": round(rates["zaro cached"] / rates["java from memory"], 3),
                      "zaro cached_over_java_median": round(statistics.median(times["java from memory"])
                                                            / statistics.median(times["zaro cached"]), 3)}))
    for name in ["zaro cached", "zaro cached http", "zaro cached zstd", "java from memory"]:
        print(json.dumps({name + "_over_pyarrow_best": round(rates[name] / rates["pyarrow"], 3),
                          name + "_over_pyarrow_median": round(statistics.median(times["pyarrow"])
                                                               / statistics.median(times[name]), 3)}))
    # per round: the anchor's time over the server's in the same round (they ran back to back),
    # the median of those: steadier on a shared machine than ratios of bests or of medians
    def per_round(name, anchor):
        return round(statistics.median(a / b for a, b in zip(times[anchor], times[name])), 3)
    print(json.dumps({"per_round_median": {
        "zaro cached / java from memory": per_round("zaro cached", "java from memory"),
        "zaro cached http / pyarrow": per_round("zaro cached http", "pyarrow"),
        "zaro cached / pyarrow": per_round("zaro cached", "pyarrow"),
        "zaro / pyarrow": per_round("zaro", "pyarrow"),
        "java from memory / pyarrow": per_round("java from memory", "pyarrow"),
        "zaro cached zstd / zaro cached": per_round("zaro cached zstd", "zaro cached")},
        "load_average": os.getloadavg()}))
    print(json.dumps({"zaro_over_pyarrow_best": round(rates["zaro"] / rates["pyarrow"], 3),
                      "zaro_over_pyarrow_median": round(statistics.median(times["pyarrow"])
                                                        / statistics.median(times["zaro"]), 3)}))
    # zaro decoding the same array in one read, no Flight: what its streams cannot beat
    bench = json.loads(subprocess.run([args.zaro, "bench", str(path), "/", "--repeat", str(args.rounds)],
                                      capture_output=True, text=True, check=True).stdout)
    print(json.dumps({"server": "zaro bench (decode only, no Flight)", "bytes": bench["bytes"],
                      "best_seconds": round(min(bench["seconds"]), 3),
                      "median_seconds": round(bench["median_seconds"], 3),
                      "best_gbps": round(bench["bytes"] / min(bench["seconds"]) / 1e9, 3)}))
    if args.table:
        table = fl.FlightDescriptor.for_command(json.dumps({"array": "/", "slice": f"0:{args.size // 4}",
                                                            "layout": "table"}))
        best = min(fetch(zc, table)[0] for _ in range(3))
        nbytes = fetch(zc, table)[1]
        print(json.dumps({"server": "zaro", "layout": "table", "slice": f"0:{args.size // 4}", "bytes": nbytes,
                          "best_seconds": round(best, 3), "best_gbps": round(nbytes / best / 1e9, 3)}))


if __name__ == "__main__":
    main()
