"""Writes Zarr v3 arrays of the ML float types (bfloat16, every float8, float6 and float4 type)
that zaro reads as float32 values, with the expected values from ml_dtypes:
`stored.astype(np.float32)` of the very bit patterns written.

Each array holds every bit pattern of its type (bfloat16: every 61st pattern plus zeros, infinities,
NaNs, the largest value and subnormals), so NaN, infinity, -0, subnormals and the largest value
of each format are read back; the last rows stay unwritten and read as the fill value. tensorstore
(0.1.85) writes the types it has (bfloat16, float8_* including e8m0fnu, float4_e2m1fn), some
sharded, some big endian, some compressed; float6_* and float8_e4m3, which tensorstore lacks, are
written chunk by chunk with numpy (attribute "written_by"). Also writes conversions.json:
ml_dtypes' double -> bits for float8_e8m0fnu (fill values), as testdata/fallback has it for the
other formats.

Run from the repository root: .venv/bin/python testdata/mlfloats/generate_mlfloats.py
Rewrites testdata/mlfloats/{stores,expected,cases.json,conversions.json}.
"""
import json
import pathlib
import shutil
import sys

import ml_dtypes
import numpy as np
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "fallback"))
from selection import to_index  # noqa: E402  (testdata/selection.py)
from generate_fallback import conversions  # noqa: E402

BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
# name, fill_value as JSON, codecs
SPECS = [
    ("bfloat16", "NaN", [{"name": "bytes", "configuration": {"endian": "big"}},
                         {"name": "zstd", "configuration": {"level": 3}}]),
    ("float8_e4m3fn", -0.0, [BYTES]),
    ("float8_e4m3fnuz", "NaN", [BYTES, {"name": "gzip", "configuration": {"level": 1}}]),
    ("float8_e4m3b11fnuz", 0.25, [BYTES]),
    ("float8_e5m2", "-Infinity", [BYTES]),
    ("float8_e5m2fnuz", 57344.0, [BYTES]),
    ("float8_e3m4", "Infinity", [BYTES]),
    ("float8_e8m0fnu", "NaN", [BYTES]),  # tensorstore 0.1.85 converts other e8m0fnu fill values wrongly (1.0 -> 0x3f)
    ("float4_e2m1fn", -6.0, [BYTES]),
]
# sharded copies: the widening sits in front of sharding_indexed
SHARDED = ["bfloat16", "float8_e4m3fn"]
NUMPY_SPECS = [("float6_e2m3fn", -7.5), ("float6_e3m2fn", 28.0), ("float8_e4m3", "NaN")]
COLS = 16
SELECTIONS = ["", "1::3, 2:15", "2, :"]


def patterns(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    if dt.itemsize == 2:  # bfloat16
        special = np.array([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0x7f7f, 0xff7f,
                            0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80], dtype=np.uint16)
        every = np.arange(0, 65536, 61, dtype=np.uint32).astype(np.uint16)
        return np.concatenate([special, every]).view(dt)
    bits = ml_dtypes.finfo(dt).bits
    return np.arange(2 ** bits, dtype=np.uint16).astype(np.uint8).view(dt)


def fill_of(name, fill):
    value = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}.get(fill, fill)
    return np.array([value], dtype=np.float64).astype(getattr(ml_dtypes, name))


def layout(name, fill):
    """Every pattern in C order over rows of COLS, then 3 unwritten rows of the fill value."""
    values = patterns(name)
    rows = -(-len(values) // COLS)
    data = np.repeat(fill_of(name, fill), (rows + 3) * COLS).reshape(rows + 3, COLS)
    flat = data.reshape(-1)
    flat[:len(values)] = values
    return data, rows


def write_expected(name, data, cases, store, written_by):
    wide = data.astype(np.float32)  # ml_dtypes' widening: the reference
    reads = []
    for i, sel in enumerate(SELECTIONS):
        got = np.ascontiguousarray(wide[to_index(sel, data.shape)])
        exp = f"expected/{store.replace('/', '_')}.{i}.bin"
        got.astype("<f4").tofile(HERE / exp)
        reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
    cases.append({"name": store, "store": f"stores/{store}.zarr", "path": "", "data_type": name,
                  "values": "float32", "written_by": written_by, "shape": list(data.shape),
                  "reads": reads})


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    cases = []
    for name, fill, codecs in SPECS:
        data, rows = layout(name, fill)
        uint = np.uint16 if data.dtype.itemsize == 2 else np.uint8
        for sharded in [False, True] if name in SHARDED else [False]:
            store = name + ("_sharded" if sharded else "")
            chain = codecs
            if sharded:
                chain = [{"name": "sharding_indexed", "configuration": {
                    "chunk_shape": [4, 5], "codecs": codecs,
                    "index_codecs": [BYTES, {"name": "crc32c"}]}}]
            path = HERE / "stores" / f"{store}.zarr"
            t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                         "metadata": {"shape": list(data.shape), "data_type": name, "fill_value": fill,
                                      "chunk_grid": {"name": "regular", "configuration": {
                                          "chunk_shape": [8, 10] if sharded else [4, 5]}},
                                      "codecs": chain, "dimension_names": ["row", "col"]}},
                        create=True).result()
            t[:rows].write(data[:rows]).result()  # rows past them (chunks of only fill) stay unwritten
            back = t.read().result()
            assert np.array_equal(back.view(uint), data.view(uint)), store
            write_expected(name, data, cases, store, "tensorstore 0.1.85")
    for name, fill in NUMPY_SPECS:
        data, rows = layout(name, fill)
        chunks = (4, 5)
        root = HERE / "stores" / f"{name}.zarr"
        root.mkdir(parents=True)
        meta = {"zarr_format": 3, "node_type": "array", "shape": list(data.shape), "data_type": name,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": [BYTES],
                "dimension_names": ["row", "col"], "attributes": {"written_by": "numpy+ml_dtypes"}}
        (root / "zarr.json").write_text(json.dumps(meta, indent=1))
        grid = [-(-data.shape[0] // chunks[0]), -(-data.shape[1] // chunks[1])]
        fill_bits = fill_of(name, fill).view(np.uint8)[0]
        for i, j in np.ndindex(*grid):
            block = np.full(chunks, fill_bits, dtype=np.uint8)
            part = data[i * 4:(i + 1) * 4, j * 5:(j + 1) * 5].view(np.uint8)
            block[:part.shape[0], :part.shape[1]] = part
            if (block == fill_bits).all():
                continue  # only the fill value: left out
            (root / "c" / str(i)).mkdir(parents=True, exist_ok=True)
            (root / "c" / str(i) / str(j)).write_bytes(block.tobytes())
        write_expected(name, data, cases, name, "numpy+ml_dtypes")
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")
    (HERE / "conversions.json").write_text(json.dumps({"float8_e8m0fnu": conversions("float8_e8m0fnu")}) + "\n")


if __name__ == "__main__":
    main()
