"""Flight throughput to pyarrow on loopback, and the server's peak Arrow memory.

  .venv/bin/python benchmarks/flight_throughput.py [--size 1024]

Writes (once) benchmarks/data/flight_f32_<size>.zarr: float32 [size, 512, 512] (1 GiB at
size 1024), zstd, chunks [64, 128, 128]; serves it with ./zaro serve; fetches every endpoint
of the tensor layout (and a slab in the table layout) and prints GB/s and the server's peak
allocator bytes (do_action "stats").
"""
import argparse
import json
import pathlib
import re
import subprocess
import time

import numpy as np
import pyarrow.flight as fl
import tensorstore as ts

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"


def dataset(size):
    path = DATA / f"flight_f32_{size}.zarr"
    if (path / "zarr.json").exists():
        return path
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                 "metadata": {"shape": [size, 512, 512], "data_type": "float32",
                              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [64, 128, 128]}},
                              "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                         {"name": "zstd", "configuration": {"level": 1}}],
                              "fill_value": 0}}, create=True, delete_existing=True).result()
    y, x = np.mgrid[0:512, 0:512].astype(np.float32)
    for z in range(0, size, 64):
        block = np.stack([np.sin(x / 50 + k) * np.cos(y / 30) * 100 for k in range(z, z + 64)]).astype(np.float32)
        t[z:z + 64].write(block).result()
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1024)
    args = parser.parse_args()
    path = dataset(args.size)
    proc = subprocess.Popen([str(ROOT / "zaro"), "serve", str(path), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        uri = None
        while uri is None:
            m = re.search(r"grpc://127\.0\.0\.1:\d+", proc.stdout.readline())
            uri = m.group(0) if m else None
        client = fl.connect(uri)
        for layout, sl in [("tensor", ""), ("table", "0:256")]:
            info = client.get_flight_info(fl.FlightDescriptor.for_command(
                json.dumps({"array": "/", "slice": sl, "layout": layout})))
            best = None
            for _ in range(3):
                t0 = time.perf_counter()
                nbytes = 0
                for e in info.endpoints:
                    reader = client.do_get(e.ticket)
                    for chunk in reader:
                        nbytes += chunk.data.nbytes
                dt = time.perf_counter() - t0
                best = dt if best is None else min(best, dt)
            stats = json.loads(list(client.do_action(fl.Action("stats", b"")))[0].body.to_pybytes())
            print(json.dumps({"layout": layout, "slice": sl, "endpoints": len(info.endpoints), "bytes": nbytes,
                              "best_seconds": round(best, 3), "gbps": round(nbytes / best / 1e9, 3),
                              "server_peak_allocator_bytes": stats["peak_allocated_bytes"]}))
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
