"""zaro and tensorstore side by side on the same datasets, same threads, same machine.

  .venv/bin/python benchmarks/compare.py [--threads 2] [--repeat 15] [--warmup N] [--datasets zstd raw ...]
                                         [--ops read_all slab ...] [--markdown OUT.md]

Datasets come from benchmarks/make_datasets.py (written on first use). For every dataset and
operation it runs `./zaro bench` (in-process repeated reads in one JVM) and tensorstore (in
this process, with data_copy_concurrency and file_io_concurrency limited to the same thread
count, no cache), alternating, and prints median seconds, decoded GB/s, the ratio
tensorstore/zaro (above 1: zaro is faster) and zaro's peak allocator bytes.
"""
import argparse
import inspect
import json
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import make_datasets  # noqa: E402

N = 512


def parse(sel):
    out = []
    for part in sel.split(","):
        part = part.strip()
        out.append(slice(*[int(b) if b.strip() else None for b in part.split(":")]) if ":" in part else int(part))
    return tuple(out)


def operations(chunk, inner=None):
    """Each operation's selections; `inner` (sharded datasets) adds inner-chunk-by-inner-chunk."""
    rng = np.random.default_rng(1)
    boxes = []
    for _ in range(1000):
        z, y, x = rng.integers(0, N - 64, 3)
        boxes.append(f"{z}:{z + 64}, {y}:{y + 64}, {x}:{x + 64}")
    chunks = [f"{z}:{z + chunk}, {y}:{y + chunk}, {x}:{x + chunk}"
              for z in range(0, N, chunk) for y in range(0, N, chunk) for x in range(0, N, chunk)]
    ops = {
        "read_all": [":, :, :"],
        "slab": ["100:420, 37:455, 5:500"],
        "z_plane": ["256, :, :"],
        "column": ["100, 200, :"],
        "chunk_by_chunk": chunks,
        "random_64_boxes": boxes,
    }
    if inner:
        ops["inner_chunk_by_chunk"] = [f"{z}:{z + inner}, {y}:{y + inner}, {x}:{x + inner}"
                                       for z in range(0, N, inner) for y in range(0, N, inner) for x in range(0, N, inner)]
    return ops


def warmup_passes(op, slices):
    """Untimed passes before the timed ones, so the JIT has compiled the read path (the timed
    reads are steady state, as tensorstore's native code is from its first read).
    Random boxes need about 30 passes of 1000 since `bench` runs with C2 thresholds ten times the
    JVM's: over sharded_128_32, C2 compiled the per-box set-up (ZarrArray.read, readChunk,
    Selection.parse) in bursts of 0.05-0.28 s until pass 28, nothing from pass 29 on
    (2026-11-27, benchmarks/README "Random boxes over 32^3 inner chunks"); 8 passes were enough
    with the JVM's thresholds (2026-11-24).
    Read all and slab need about 20 since `bench` runs with C2 thresholds ten times the JVM's
    (docs/startup.md, "Start-up"): with 3, the timed passes still ran beside C2 compiles of 40-190 ms
    (`bench`'s jit_seconds), and sharded_128_32's slab took 0.072-0.088 s in passes 4-8 against
    0.062-0.068 s from pass 12 on (2026-11-26, benchmarks/README "Steady state"). `--warmup N`
    sets every operation's count instead (`--warmup 3 --repeat 5` gives the earlier tables' read
    all and slab figures)."""
    if op == "random_64_boxes":
        return 30
    if len(slices) > 1:
        return 1
    return 20 if op in ("read_all", "slab") else 500


ZARO = ROOT / "zaro"


def run_zaro(path, slices, threads, repeat, warmup):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(slices))
    out = subprocess.run([str(ZARO), "bench", str(path), "/", "--slices-file", f.name,
                          "--repeat", str(repeat), "--warmup", str(warmup), "--threads", str(threads)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def timed(read, index, repeat, warmup=1):
    """Runs every read of `index` `warmup` times untimed, then `repeat` timed passes."""
    seconds, each, cpu = [], [], []
    for r in range(repeat + warmup):
        t0, c0 = time.perf_counter(), time.process_time()
        nbytes = 0
        for ix in index:
            r0 = time.perf_counter()
            nbytes += read(ix)
            if r >= warmup:
                each.append(time.perf_counter() - r0)
        if r >= warmup:
            seconds.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    med = float(np.median(seconds))
    out = {"median_seconds": med, "bytes": nbytes, "gbps": nbytes / med / 1e9, "cpu_seconds": cpu}
    if len(index) > 1:
        out["read_p50_seconds"] = float(np.percentile(each, 50))
        out["read_p99_seconds"] = float(np.percentile(each, 99))
    return out


def run_tensorstore(path, slices, threads, repeat, warmup=1):
    driver = "zarr" if (path / ".zarray").exists() else "zarr3"
    t = ts.open({"driver": driver, "kvstore": {"driver": "file", "path": str(path)},
                 "context": {"data_copy_concurrency": {"limit": threads},
                             "file_io_concurrency": {"limit": threads},
                             "cache_pool": {"total_bytes_limit": 0}}}).result()
    return timed(lambda ix: t[ix].read().result().nbytes, [parse(s) for s in slices], repeat, warmup)


# zarr-python 2 (Debian's python3-zarr) runs in the system interpreter on the v2 copy; blosc's own
# threads set to the same count (zarr-python 2 reads chunks one after another)
ZARR2 = """
import json, sys, time
import numcodecs.blosc, numpy as np, zarr
""" + inspect.getsource(parse) + inspect.getsource(timed) + """
numcodecs.blosc.set_nthreads(int(sys.argv[2]))
z = zarr.open_array(sys.argv[1], mode="r")
slices = json.loads(sys.stdin.read())
print(json.dumps(timed(lambda ix: z[ix].nbytes, [parse(s) for s in slices], int(sys.argv[3]))))
"""


def run_zarr2(path, slices, threads, repeat):
    python = pathlib.Path("/usr/bin/python3")
    check = subprocess.run([str(python), "-c", "import zarr; assert zarr.__version__.startswith('2.')"],
                           capture_output=True) if python.exists() else None
    if check is None or check.returncode != 0:
        return None
    out = subprocess.run([str(python), "-c", ZARR2, str(path), str(threads), str(repeat)],
                         input=json.dumps(slices), check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=15,
                        help="timed passes (operations of 100 selections or more: half as many)")
    parser.add_argument("--datasets", nargs="*", default=list(make_datasets.datasets(N)))
    parser.add_argument("--ops", nargs="*")
    parser.add_argument("--markdown")
    parser.add_argument("--warmup", type=int, help="untimed passes of every operation before the timed ones"
                        " (default: warmup_passes, 20 for read all and slab; tensorstore gets as many, at most 20)")
    parser.add_argument("--zaro", help="the zaro launcher to run (default: this checkout's; another"
                        " checkout's for an A/B of two builds in one run)")
    args = parser.parse_args()
    if args.zaro:
        global ZARO
        ZARO = pathlib.Path(args.zaro).resolve()
    rows = []
    for name in args.datasets:
        path = make_datasets.DATA / f"{name}_{N}.zarr"
        if not (path / "zarr.json").exists():
            subprocess.run([sys.executable, str(HERE / "make_datasets.py"), "--size", str(N), "--only", name], check=True)
        v2 = (path / ".zarray").exists()
        if v2:
            chunk, inner = json.loads((path / ".zarray").read_text())["chunks"][0], None
        else:
            meta = json.loads((path / "zarr.json").read_text())
            chunk = meta["chunk_grid"]["configuration"]["chunk_shape"][0]
            codec = meta["codecs"][0]
            inner = codec["configuration"]["chunk_shape"][0] if codec["name"] == "sharding_indexed" else None
        for op, slices in operations(chunk, inner).items():
            if args.ops and op not in args.ops:
                continue
            repeat = args.repeat if len(slices) < 100 else max(1, args.repeat // 2)
            warmup = args.warmup if args.warmup is not None else warmup_passes(op, slices)
            z = run_zaro(path, slices, args.threads, repeat, warmup)
            # tensorstore's native code needs no JIT warm-up; as many untimed passes (at most 20)
            # all the same, so both readers' timed passes see the same warm page cache and allocator
            s = run_tensorstore(path, slices, args.threads, repeat, max(1, min(warmup, 20)) if len(slices) == 1 else 1)
            row = {"dataset": name, "op": op, "zaro_s": z["median_seconds"], "ts_s": s["median_seconds"],
                   "zaro_gbps": z["gbps"], "ts_gbps": s["gbps"], "ratio": s["median_seconds"] / z["median_seconds"],
                   "zaro_peak_mb": z["peak_allocator_bytes"] / 2**20,
                   # process CPU per pass (zaro: the whole JVM; tensorstore: this process)
                   "zaro_cpu_s": float(np.median(z["cpu_seconds"])) if z.get("cpu_seconds") else None,
                   # the JIT's compile seconds (all compiler threads) during zaro's timed passes, summed:
                   # near 0 when they were steady state
                   "zaro_jit_s": float(np.sum(z["jit_seconds"])) if z.get("jit_seconds") else None,
                   "warmup": warmup,
                   "ts_cpu_s": float(np.median(s["cpu_seconds"]))}
            z2 = run_zarr2(path, slices, args.threads, repeat) if v2 else None
            if z2:
                row["zarr2_s"] = z2["median_seconds"]
            if "read_p50_seconds" in z:
                row.update({"zaro_p50_ms": z["read_p50_seconds"] * 1e3, "zaro_p99_ms": z["read_p99_seconds"] * 1e3,
                            "ts_p50_ms": s["read_p50_seconds"] * 1e3, "ts_p99_ms": s["read_p99_seconds"] * 1e3})
            rows.append(row)
            print(json.dumps(row), flush=True)
    lines = ["| dataset | operation | zaro s | tensorstore s | zaro GB/s | tensorstore GB/s | ts/zaro | zaro p50/p99 ms | ts p50/p99 ms | zaro peak MiB | zarr-python 2 s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lat_z = f"{r['zaro_p50_ms']:.2f}/{r['zaro_p99_ms']:.2f}" if "zaro_p50_ms" in r else ""
        lat_t = f"{r['ts_p50_ms']:.2f}/{r['ts_p99_ms']:.2f}" if "ts_p50_ms" in r else ""
        zarr2 = f"{r['zarr2_s']:.3f}" if "zarr2_s" in r else ""
        lines.append(f"| {r['dataset']} | {r['op']} | {r['zaro_s']:.3f} | {r['ts_s']:.3f} | {r['zaro_gbps']:.2f} | "
                     f"{r['ts_gbps']:.2f} | {r['ratio']:.2f} | {lat_z} | {lat_t} | {r['zaro_peak_mb']:.0f} | {zarr2} |")
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        pathlib.Path(args.markdown).write_text(table + "\n")


if __name__ == "__main__":
    main()
