"""Writes the Spark benchmark's table twice into benchmarks/data/spark/ (not committed): as a Zarr v3
hierarchy (tensorstore; t2m with CF coordinates time/lat/lon, zstd chunks of 4 x 256 x 512) and as
the same rows in Parquet (pyarrow; zstd, row groups of 1 Mi rows), for benchmarks/spark_bench.sh.

  .venv/bin/python benchmarks/make_spark_dataset.py [--times 256]
"""
import argparse
import json
import pathlib
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "data" / "spark"
ZSTD = [{"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "zstd", "configuration": {"level": 3, "checksum": False}}]


def write(path, values, chunks, dims, attrs):
    store = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                     "metadata": {"shape": list(values.shape), "data_type": str(values.dtype),
                                  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                                  "codecs": ZSTD, "dimension_names": dims, "attributes": attrs}},
                    create=True, delete_existing=True).result()
    store.write(values).result()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--times", type=int, default=256)
    args = parser.parse_args()
    t, y, x = args.times, 256, 512
    if OUT.exists():
        shutil.rmtree(OUT)
    root = OUT / "table.zarr"
    root.mkdir(parents=True)
    (root / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}))
    hours = np.arange(t, dtype=np.float64) * 6
    lat = np.linspace(90, -90, y)
    lon = np.linspace(0, 360, x, endpoint=False)
    rng = np.random.default_rng(0)
    tt, yy, xx = np.meshgrid(hours, lat, lon, indexing="ij")
    t2m = (273 + 30 * np.cos(np.radians(yy)) + 5 * np.sin(np.radians(xx + tt))
           + rng.normal(0, 0.5, (t, y, x))).astype(np.float32)
    del tt, yy, xx
    write(root / "time", hours, [t], ["time"], {"units": "hours since 2020-01-01 00:00:00", "calendar": "standard"})
    write(root / "lat", lat, [y], ["lat"], {"units": "degrees_north"})
    write(root / "lon", lon, [x], ["lon"], {"units": "degrees_east"})
    write(root / "t2m", t2m, [4, y, x], ["time", "lat", "lon"], {"units": "K"})
    micros = (hours * 3600 * 1e6).astype(np.int64) + np.datetime64("2020-01-01", "us").astype(np.int64)
    table = pa.table({
        "time": pa.array(np.repeat(micros, y * x), pa.timestamp("us")),
        "lat": np.tile(np.repeat(lat, x), t),
        "lon": np.tile(lon, t * y),
        "t2m": t2m.reshape(-1),
    })
    pq.write_table(table, OUT / "table.parquet", compression="zstd", row_group_size=1 << 20)
    print(f"wrote {OUT}: {t * y * x} rows")


if __name__ == "__main__":
    main()
