"""Where the time of xarray_bench.py's zaro reads goes: the server, gRPC, the client, xarray.

  .venv/bin/python benchmarks/xarray_breakdown.py [--rtt-ms 0 20] [--repeat 15] [--warmup 10]

Serves benchmarks/data/era5_client.zarr with `./zaro serve` and times, in this process, each layer
of the two operations xarray_bench.py compares, one layer added at a time (medians in ms):
- open: a `stats` action (one gRPC round trip, nothing read), the `describe` action with its
  results gathered raw, `client.describe` (also parses them), and xr.open_dataset(engine="zaro");
- load t2m (62 MB): `zaro bench` (the read inside the JVM, no transport; a process of its own),
  one raw do_get of the whole array (pyarrow's read_all), client.read with the values on the link
  (parallel streams into one numpy array), client.read through a shared-memory file (rtt 0
  only), and open + .values through xarray (adds CF masking of the fill value).
At rtt > 0 the client reaches the server through xarray_bench.py's delay proxy.
"""
import argparse
import json
import pathlib
import re
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from xarray_bench import ROOT, STORE, DelayProxy, start_line  # noqa: E402


def median_ms(fn, repeat, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1000, 2)


def jvm_read_ms(repeat, warmup):
    out = subprocess.run([str(ROOT / "zaro"), "bench", str(STORE), "t2m", "--repeat", str(repeat),
                          "--warmup", str(warmup)], capture_output=True, text=True, check=True).stdout
    return round(json.loads(out.strip().splitlines()[-1])["median_seconds"] * 1000, 2)


def layers(url, near, repeat, warmup):
    import pyarrow.flight as fl
    import xarray as xr
    import zaro_client

    wire = zaro_client.connect(url, shared_memory=False)
    flight = fl.connect(url)
    describe = fl.Action("describe", json.dumps({"group": "", "recursive": False}).encode())
    whole = fl.Ticket(json.dumps({"array": "t2m", "slice": "", "layout": "tensor"}).encode())
    rows = {
        "open: stats action (one round trip)": lambda: list(flight.do_action(fl.Action("stats", b""))),
        "open: describe action, raw": lambda: list(flight.do_action(describe)),
        "open: client.describe": lambda: wire.describe(""),
        "open: xr.open_dataset": lambda: xr.open_dataset(wire, engine="zaro"),
        "load: one raw do_get": lambda: flight.do_get(whole).read_all(),
        "load: client.read, values on the link": lambda: wire.read("t2m"),
    }
    client = wire
    if near:
        client = zaro_client.connect(url, shared_memory=True)
        rows["load: client.read, shared memory"] = lambda: client.read("t2m")
    rows["load: open + .values through xarray"] = lambda: xr.open_dataset(client, engine="zaro").t2m.values
    return {name: median_ms(fn, repeat, warmup) for name, fn in rows.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rtt-ms", type=int, nargs="+", default=[0, 20])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    zaro, serving = start_line([str(ROOT / "zaro"), "serve", str(STORE), "--port", "0"], "serving")
    try:
        port = int(re.search(r"grpc://127\.0\.0\.1:(\d+)", serving).group(1))
        table = {"load: the read inside the JVM (zaro bench)": {0: jvm_read_ms(args.repeat, args.warmup)}}
        for rtt in args.rtt_ms:
            url = f"grpc://127.0.0.1:{DelayProxy(port, rtt).port if rtt else port}"
            for name, ms in layers(url, rtt == 0, args.repeat, args.warmup).items():
                table.setdefault(name, {})[rtt] = ms
        print("| layer | " + " | ".join(f"{r} ms rtt" for r in args.rtt_ms) + " |")
        print("|---|" + "---|" * len(args.rtt_ms))
        for name, by_rtt in table.items():
            print(f"| {name} | " + " | ".join(str(by_rtt.get(r, "")) for r in args.rtt_ms) + " |")
    finally:
        zaro.terminate()
        zaro.wait()


if __name__ == "__main__":
    main()
