"""Writes Zarr v3 arrays whose data types zaro reads only as bit patterns (bfloat16, the
float8 types, the OCP MX float6/float4 types; ML checkpoints use them), their expected bits
from numpy + ml_dtypes, and an oracle of ml_dtypes' double -> bits conversions for fill values.

tensorstore writes the types it has; float6_*, float8_e4m3 are written chunk by chunk with
numpy (ml_dtypes values), metadata by hand, with junk in the upper bits of each byte of the
float6 ones (the bytes codec stores a 6-bit value in the low bits of a byte and ignores the
rest; expected bits have them clear).

Run from the repository root: .venv/bin/python testdata/fallback/generate_fallback.py
Rewrites testdata/fallback/{stores,expected,cases.json,conversions.json}.
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
from selection import to_index  # noqa: E402  (testdata/selection.py)

# name, fill_value as JSON, extra codecs after bytes, endian
SPECS = [
    ("bfloat16", "NaN", [{"name": "zstd", "configuration": {"level": 3}}], "big"),
    ("float8_e4m3fn", -2.5, [], "little"),
    ("float8_e5m2", "-Infinity", [{"name": "gzip", "configuration": {"level": 1}}], "little"),
    ("float8_e4m3fnuz", 0.375, [], "little"),
    ("float8_e5m2fnuz", 3, [], "little"),
    ("float8_e4m3b11fnuz", -0.0, [], "little"),
    ("float4_e2m1fn", 1.5, [{"name": "zstd", "configuration": {"level": 3}}], "little"),
    ("float8_e3m4", "NaN", [], "little"),
]
# written by numpy: tensorstore lacks these types
NUMPY_SPECS = [
    ("float6_e2m3fn", -0.875, 6),
    ("float6_e3m2fn", 3, 6),
    ("float8_e4m3", "Infinity", 8),
]
SELECTIONS = ["", "1:8:2, 3:13", "6, :"]


def fill_bits(name, fill):
    value = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}.get(fill, fill)
    return np.array([value], dtype=np.float64).astype(getattr(ml_dtypes, name))


def conversions(name):
    """Doubles that exercise rounding (ties, subnormals, overflow) with ml_dtypes' bits.

    ml_dtypes converts a double through float32 (rounding twice), where the v3 spec and zaro
    round once; the two agree on every float32 value, so the oracle holds only float32 values
    (numpy's float16 rounds doubles once: it gets float64 values too)."""
    dt = np.dtype(getattr(ml_dtypes, name)) if name != "float16" else np.dtype(np.float16)
    uint = np.uint16 if dt.itemsize == 2 else np.uint8
    rng = np.random.default_rng(11)
    bits = 16 if name == "float16" else ml_dtypes.finfo(dt).bits  # 4 and 6 for the float4/float6 types
    every = np.arange(0, 2 ** bits, dtype=np.uint64).astype(uint).view(dt)
    finite = np.sort(np.unique(every[np.isfinite(every)].astype(np.float64)))
    wide = np.float64 if name == "float16" else np.float32
    mids = ((finite[:-1] + finite[1:]) / 2).astype(wide)  # exact ties
    largest = finite[-1]
    values = np.concatenate([
        finite, mids, np.nextafter(mids, wide(np.inf)), np.nextafter(mids, wide(-np.inf)),
        largest * np.array([1.0, 1.0001, 1.03, 1.0625, 1.07, 2, 1e10]),
        -largest * np.array([1.0001, 1.03, 1.07]),
        np.exp(rng.uniform(np.log(1e-12), np.log(float(largest) * 1.5), 400)) * rng.choice([-1, 1], 400),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300, 5e-324],
    ])
    values = values.astype(wide).astype(np.float64)
    if len(values) > 3000:
        values = values[rng.choice(len(values), 3000, replace=False)]
    bits = values.astype(dt).view(uint)
    return [[repr(float(v)) if np.isfinite(v) else {np.inf: "Infinity", -np.inf: "-Infinity"}.get(v, "NaN"),
             int(b)] for v, b in zip(values, bits)]


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    rng = np.random.default_rng(5)
    cases = []
    for name, fill, compressors, endian in SPECS:
        dtype = getattr(ml_dtypes, name)
        uint = np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint8
        shape, chunks = (9, 14), (4, 5)
        path = HERE / "stores" / f"{name}.zarr"
        store = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                         "metadata": {"shape": list(shape), "data_type": name, "fill_value": fill,
                                      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
                                      "codecs": [{"name": "bytes", "configuration": {"endian": endian}}] + compressors,
                                      "attributes": {"written_by": "tensorstore"}}},
                        create=True).result()
        data = np.repeat(fill_bits(name, fill), np.prod(shape)).reshape(shape)
        values = (rng.normal(0, 4, (9, 9))).astype(np.float64).astype(dtype)
        data[:, :9] = values
        store[:, :9] = values  # chunks of columns 10.. stay unwritten: the fill value
        back = store.read().result()
        assert np.array_equal(back.view(uint), data.view(uint)), name
        reads = []
        for i, sel in enumerate(SELECTIONS):
            got = np.ascontiguousarray(data[to_index(sel)]).view(uint)
            exp = f"expected/{name}.{i}.bin"
            got.astype(np.dtype(uint).newbyteorder("<")).tofile(HERE / exp)
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": name,
                      "bits": int(np.dtype(uint).itemsize * 8), "shape": list(shape), "reads": reads})
    for name, fill, bits in NUMPY_SPECS:
        dtype = getattr(ml_dtypes, name)
        shape, chunks = (9, 14), (4, 5)
        data = np.repeat(fill_bits(name, fill), np.prod(shape)).reshape(shape)
        data[:, :9] = (rng.normal(0, 4, (9, 9))).astype(np.float64).astype(dtype)
        root = HERE / "stores" / f"{name}.zarr"
        root.mkdir(parents=True)
        meta = {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": name,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
                "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": [{"name": "bytes"}],
                "attributes": {"written_by": "numpy+numcodecs"}}
        (root / "zarr.json").write_text(json.dumps(meta, indent=1))
        junk = np.random.default_rng(9)
        for i, j in np.ndindex(3, 3):  # chunk columns 0..1 and the first 4 columns of 2 hold values
            block = np.repeat(fill_bits(name, fill), np.prod(chunks)).reshape(chunks).view(np.uint8)
            part = data[i * 4:(i + 1) * 4, j * 5:(j + 1) * 5].view(np.uint8)
            block[:part.shape[0], :part.shape[1]] = part
            if (part == block[:1, :1]).all():
                continue  # only the fill value: left out
            upper = junk.integers(0, 256, chunks, dtype=np.uint8) & ~np.uint8((1 << bits) - 1)
            (root / "c" / str(i)).mkdir(parents=True, exist_ok=True)
            (root / "c" / str(i) / str(j)).write_bytes((block | upper).tobytes())
        reads = []
        for i, sel in enumerate(SELECTIONS):
            got = np.ascontiguousarray(data[to_index(sel)]).view(np.uint8)
            exp = f"expected/{name}.{i}.bin"
            got.tofile(HERE / exp)
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": name,
                      "bits": 8, "shape": list(shape), "reads": reads})
    # these expected files are the bit patterns: zaro reads them so with --raw-bits (ZaroOptions.withFallbackTypes)
    (HERE / "cases.json").write_text(json.dumps({"options": {"fallback_types": True}, "cases": cases}, indent=1) + "\n")
    oracle = {name: conversions(name) for name in ["float16"] + [s[0] for s in SPECS + NUMPY_SPECS]}
    (HERE / "conversions.json").write_text(json.dumps(oracle) + "\n")


if __name__ == "__main__":
    main()
