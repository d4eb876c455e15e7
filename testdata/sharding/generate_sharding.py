"""Writes sharded Zarr v3 fixtures with tensorstore, and the expected values tensorstore reads.

Run from the repository root: .venv/bin/python testdata/sharding/generate_sharding.py
Rewrites testdata/sharding/{stores,expected,cases.json}. Expected values are C-order
little-endian bytes of tensorstore's result for each selection.
"""
import json
import pathlib
import shutil
import sys

import numpy as np
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import to_index  # noqa: E402  (testdata/selection.py)
STORES = HERE / "stores"
EXPECTED = HERE / "expected"

BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
BIG = {"name": "bytes", "configuration": {"endian": "big"}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
GZIP = {"name": "gzip", "configuration": {"level": 5}}
CRC = {"name": "crc32c"}
INDEX = [BYTES, CRC]


def sharding(chunk_shape, codecs, index_codecs=INDEX, location="end"):
    return {"name": "sharding_indexed", "configuration": {
        "chunk_shape": chunk_shape, "codecs": codecs,
        "index_codecs": index_codecs, "index_location": location}}


CASES = [
    # name, shape, chunk (shard) shape, dtype, fill, codecs, selections
    ("end_zstd", [30, 41], [10, 16], "int32", -5,
     [sharding([5, 4], [BYTES, ZSTD])],
     ["", "3:27:4, 5:40", "0:5, 0:4", "29, :", "7:8, 33:34"]),
    ("start_gzip_uint16", [25, 18, 7], [10, 9, 7], "uint16", 7,
     [sharding([5, 3, 7], [BYTES, GZIP], location="start")],
     ["", "2:24:3, 4:16, 1:6", "::12, 0, :"]),
    ("transpose_then_shard", [20, 12], [8, 12], "float64", "NaN",
     [{"name": "transpose", "configuration": {"order": [1, 0]}}, sharding([4, 4], [BIG, ZSTD])],
     ["", "1:19:2, 3:11"]),
    ("nested", [32, 32], [16, 16], "int16", 0,
     [sharding([8, 8], [sharding([4, 2], [BYTES, ZSTD])])],
     ["", "5:29, 3:30:5", "8:12, 8:10"]),
    ("index_without_crc", [17], [8], "float32", 1.5,
     [sharding([2], [BYTES], index_codecs=[BYTES])],
     ["", "3:14:2"]),
    ("inner_crc", [12, 10], [6, 10], "uint8", 255,
     [sharding([3, 5], [BYTES, CRC, ZSTD])],
     ["", "1:11, 2:9"]),
]


def values(shape, dtype, rng):
    n = int(np.prod(shape))
    base = (np.arange(n) * 7 + rng.integers(0, 5, n)).reshape(shape)
    return base.astype(dtype)


def main():
    shutil.rmtree(STORES, ignore_errors=True)
    shutil.rmtree(EXPECTED, ignore_errors=True)
    STORES.mkdir(parents=True)
    EXPECTED.mkdir(parents=True)
    rng = np.random.default_rng(20261122)
    cases = []
    for name, shape, chunks, dtype, fill, codecs, selections in CASES:
        path = STORES / f"{name}.zarr"
        t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                     "metadata": {"shape": shape, "data_type": dtype,
                                  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                                  "codecs": codecs, "fill_value": fill}},
                    create=True, delete_existing=True).result()
        data = values(shape, dtype, rng)
        # leave the first shard's first inner chunk region and the last shard entirely unwritten
        write_region = tuple(slice(0, s - c // 2) if s > c else slice(0, s) for s, c in zip(shape, chunks))
        t[write_region].write(data[write_region]).result()
        reads = []
        for i, sel in enumerate(selections):
            got = t[to_index(sel)].read().result()
            exp = f"expected/{name}.{i}.bin"
            np.ascontiguousarray(got).astype(got.dtype.newbyteorder("<"), copy=False).tofile(HERE / exp)
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": dtype,
                      "shape": shape, "fill_value": fill, "reads": reads})
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
