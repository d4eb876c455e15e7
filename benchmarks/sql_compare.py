"""`zaro sql` beside DuckDB over the same table in a zstd Parquet file, same thread count.

  .venv/bin/python benchmarks/sql_compare.py [--threads 2] [--repeat 5]

Writes (once) into benchmarks/data/ (not committed):
- sql_256.zarr: a Zarr v3 group with v, float32 [256, 256, 256], zstd, chunks [16, 128, 128],
  and 1-D float64 coordinates z = k / 2, y = k, x = k (so `z < 8` is the first 1/16 of z)
- sql_256.parquet: the same table (z, y, x, v: one row per element, C order), zstd, written by pyarrow

Runs each query `repeat` times after 3 untimed runs (zaro's first one the full query, for the
JIT): zaro through one `./zaro sql` process
(its --timer lines; --stats for chunks and decoded bytes read; also with --no-pushdown), DuckDB
in this process (`SET threads`); zaro and DuckDB take turns for `rounds` rounds, and the medians
are printed side by side.
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import time

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import tensorstore as ts

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
N = 256
FULL = "select avg(v), count(*), max(z) from v"
RESTRICTED = "select avg(v), count(*), max(z) from v where z < 8"


def values():
    z, y, x = np.ogrid[0:N, 0:N, 0:N]
    rng = np.random.default_rng(0)
    v = (np.sin(x / 20.0) * np.cos(y / 30.0) * 10 + z / 8.0).astype(np.float32)
    return v + rng.normal(0, 0.01, v.shape).astype(np.float32)


def write(path, data, chunks, dims):
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                 "metadata": {"shape": list(data.shape), "data_type": str(data.dtype),
                              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                              "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                         {"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
                              "fill_value": 0, "dimension_names": dims}},
                create=True, delete_existing=True).result()
    t.write(data).result()


def datasets():
    store = DATA / f"sql_{N}.zarr"
    parquet = DATA / f"sql_{N}.parquet"
    if (store / "v" / "zarr.json").exists() and parquet.exists():
        return store, parquet
    store.mkdir(parents=True, exist_ok=True)
    (store / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    v = values()
    coords = {"z": np.arange(N) / 2.0, "y": np.arange(N, dtype=np.float64), "x": np.arange(N, dtype=np.float64)}
    write(store / "v", v, [16, 128, 128], ["z", "y", "x"])
    for name, c in coords.items():
        write(store / name, c, [N], [name])
    zz, yy, xx = np.meshgrid(coords["z"], coords["y"], coords["x"], indexing="ij")
    table = pa.table({"z": zz.ravel(), "y": yy.ravel(), "x": xx.ravel(), "v": v.ravel()})
    pq.write_table(table, parquet, compression="zstd")
    return store, parquet


WARMUP = 3


def zaro_times(store, query, threads, repeat, pushdown=True):
    # untimed first: the full query (JIT warm-up over all the data), then this one
    script = ";\n".join([FULL] + [query] * (WARMUP - 1 + repeat))
    args = [str(ROOT / "zaro"), "sql", str(store), script, "--timer", "--stats", "--threads", str(threads)]
    if not pushdown:
        args.append("--no-pushdown")
    r = subprocess.run(args, capture_output=True, text=True, check=True)
    times = [float(line.split()[-1]) for line in r.stderr.splitlines() if line.startswith("Run Time")]
    stats = [json.loads(line) for line in r.stderr.splitlines() if line.startswith("{")]
    return times[WARMUP:], stats[-1], r.stdout.splitlines()[-2]


def duckdb_times(parquet, query, threads, repeat):
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute(f"CREATE VIEW v AS SELECT * FROM read_parquet('{parquet}')")
    out = []
    row = None
    for i in range(WARMUP + repeat):
        t0 = time.perf_counter()
        row = con.execute(query).fetchall()
        if i >= WARMUP:
            out.append(time.perf_counter() - t0)
    return out, row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3,
                        help="zaro and DuckDB take turns this many times (a shared machine's load varies)")
    args = parser.parse_args()
    store, parquet = datasets()
    queries = [("full", FULL), ("z < 8", RESTRICTED)]
    times = {(name, who): [] for name, _ in queries for who in ("zaro", "nopush", "duckdb")}
    stats = {}
    for _ in range(args.rounds):
        for name, query in queries:
            zt, stats[name], zrow = zaro_times(store, query, args.threads, args.repeat)
            dt, drow = duckdb_times(parquet, query, args.threads, args.repeat)
            nt, stats[name, "nopush"], _ = zaro_times(store, query, args.threads, args.repeat, pushdown=False)
            times[name, "zaro"] += zt
            times[name, "duckdb"] += dt
            times[name, "nopush"] += nt
            print(f"{name}: zaro {' '.join(zrow.split())} | duckdb {drow}", flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    print()
    print(f"threads {args.threads}, median of {args.rounds} x {args.repeat}; zaro's chunks and bytes from --stats")
    print("| query | zaro s | zaro without pushdown s | DuckDB on Parquet s | zaro / DuckDB | zaro chunks"
          " | zaro MiB decoded | zaro MiB fetched |")
    print("|---|---|---|---|---|---|---|---|")
    for name, _ in queries:
        s, ns = stats[name], stats[name, "nopush"]
        print(f"| {name} | {med[name, 'zaro']:.3f} | {med[name, 'nopush']:.3f} | {med[name, 'duckdb']:.3f} "
              f"| {med[name, 'zaro'] / med[name, 'duckdb']:.2f} | {s['chunks']} of {ns['chunks']} "
              f"| {s['bytes'] / 2**20:.1f} of {ns['bytes'] / 2**20:.1f} "
              f"| {s['bytes_fetched'] / 2**20:.1f} of {ns['bytes_fetched'] / 2**20:.1f} |")
    print()
    print(f"z < 8 / full (zaro): time {med['z < 8', 'zaro'] / med['full', 'zaro']:.3f},"
          f" bytes decoded {stats['z < 8']['bytes'] / stats['full']['bytes']:.4f},"
          f" fetched {stats['z < 8']['bytes_fetched'] / stats['full']['bytes_fetched']:.4f}")


if __name__ == "__main__":
    main()
