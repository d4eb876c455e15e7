"""Writes testdata/sql/: a small Zarr v3 group for the SQL pushdown tests, and the same tables
as Parquet files written from numpy by pyarrow, which DuckDB reads as the expected answers.

  .venv/bin/python testdata/sql/generate_sql.py

grid.zarr (tensorstore):
- v: float32 (z=16, y=12, x=10), chunks (4, 6, 5), zstd; values from a formula, a few NaN
- z: float32 coordinate 0.1 * k (values a float32 cannot hold exactly: predicates such as
  z <= 0.3 compare in float or double precision), increasing
- y: int32 coordinate 100 - 5 * k, decreasing
- x: no coordinate array: the table's x column is the int64 index
- w: int16 (z=16, s=6), chunks (4, 3); s has a non-monotone float64 coordinate (no narrowing)
- s: float64 coordinate [3, 1, 4, 1.5, 9, 2]
v.parquet, w.parquet: the table layout of v and w (one row per element, C order).
"""
import pathlib
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
STORE = HERE / "grid.zarr"
BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}


def write(path, data, chunks, dims):
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(STORE / path)},
                 "metadata": {"shape": list(data.shape), "data_type": str(data.dtype),
                              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                              "codecs": [BYTES, ZSTD], "fill_value": 0, "dimension_names": dims}},
                create=True, delete_existing=True).result()
    t.write(data).result()


def table(columns, values, name):
    grids = np.meshgrid(*[c for _, c in columns], indexing="ij")
    arrays = {n: pa.array(g.ravel()) for (n, _), g in zip(columns, grids)}
    arrays[name] = pa.array(values.ravel())
    return pa.table(arrays)


def main():
    shutil.rmtree(STORE, ignore_errors=True)
    STORE.mkdir(parents=True)
    (STORE / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    nz, ny, nx, ns = 16, 12, 10, 6
    z = (np.arange(nz) * 0.1).astype(np.float32)
    y = (100 - 5 * np.arange(ny)).astype(np.int32)
    s = np.array([3, 1, 4, 1.5, 9, 2], dtype=np.float64)
    zz, yy, xx = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    v = (zz * 100 + yy * 10 + xx + 0.25).astype(np.float32)
    v[3, 2, 1] = np.nan
    v[9, 0, :] = np.nan
    w = (np.arange(nz)[:, None] * 10 - np.arange(ns)[None, :]).astype(np.int16)
    write("v", v, [4, 6, 5], ["z", "y", "x"])
    write("z", z, [nz], ["z"])
    write("y", y, [ny], ["y"])
    write("w", w, [4, 3], ["z", "s"])
    write("s", s, [ns], ["s"])
    pq.write_table(table([("z", z), ("y", y), ("x", np.arange(nx, dtype=np.int64))], v, "v"), HERE / "v.parquet")
    pq.write_table(table([("z", z), ("s", s)], w, "w"), HERE / "w.parquet")
    print(STORE)


if __name__ == "__main__":
    main()
