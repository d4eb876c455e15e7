"""Writes Zarr v3 arrays of the zarr-extensions data types int2, int4, uint2, uint4 and struct,
plus their expected values.

- int2/int4 (int4 also in shards, sharding_indexed): tensorstore's
  zarr3 driver (values from ml_dtypes).
- uint2/uint4, and int4 whose stored bytes carry junk in the upper bits (the bytes codec
  ignores them): numpy chunk by chunk, metadata by hand; tensorstore reads the int4 one back.
- struct (and the legacy "structured" name): numpy structured arrays chunk by chunk (packed
  dtypes: the struct spec's layout is numpy's unaligned one), metadata by hand.

Expected files: C-order little-endian bytes of numpy's values; int2/int4/uint2/uint4 as
int8/uint8 (sign-extended / upper bits clear); structs as numpy's packed little-endian
elements, with the case's "numpy_dtype" (numpy's descr) to read them.

Run from the repository root: .venv/bin/python testdata/dtypes/generate_dtypes.py
Rewrites testdata/dtypes/{stores,expected,cases.json}.
"""
import base64
import gzip
import json
import pathlib
import shutil
import sys

import ml_dtypes
import numcodecs
import numpy as np
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import to_index  # noqa: E402  (testdata/selection.py)
ZSTD = numcodecs.Zstd(level=3)
BYTES_LE = {"name": "bytes", "configuration": {"endian": "little"}}


def write_chunks(name, data, chunks, meta, fill, encode):
    """numpy + numcodecs, chunk by chunk; chunks holding only the fill value are left out."""
    root = HERE / "stores" / f"{name}.zarr"
    root.mkdir(parents=True)
    meta = {"zarr_format": 3, "node_type": "array", "shape": list(data.shape),
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
            "chunk_key_encoding": {"name": "default"}, **meta,
            "attributes": {"written_by": "numpy+numcodecs"}}
    (root / "zarr.json").write_text(json.dumps(meta, indent=1))
    grid = [(s + c - 1) // c for s, c in zip(data.shape, chunks)]
    for idx in np.ndindex(*grid):
        region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, data.shape))
        part = data[region]
        if part.tobytes() == np.full(part.shape, fill, dtype=data.dtype).tobytes():
            continue
        block = np.full(chunks, fill, dtype=data.dtype)
        block[tuple(slice(0, r.stop - r.start) for r in region)] = part
        key = root / "c" / "/".join(str(i) for i in idx)
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(encode(block))


def add_case(cases, name, data, type_name, selections, **extra):
    reads = []
    for i, sel in enumerate(selections):
        got = np.ascontiguousarray(data[to_index(sel)])
        exp = f"expected/{name}.{i}.bin"
        (HERE / exp).write_bytes(got.tobytes())
        reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
    cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": type_name,
                  "shape": list(data.shape), **extra, "reads": reads})


def narrow_ints(cases, rng):
    # tensorstore writes int2/int4 one value a byte (upper bits clear)
    sharded = [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2, 5], "codecs": [{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 1}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]
    for name, fill, codecs in [("int4", -3, [{"name": "bytes"}, {"name": "zstd", "configuration": {"level": 3}}]),
                               ("int2", 1, [{"name": "bytes"}]),
                               ("int4_sharded", 5, sharded)]:
        type_name = name.split("_")[0]
        t = getattr(ml_dtypes, type_name)
        lo, hi = int(ml_dtypes.iinfo(t).min), int(ml_dtypes.iinfo(t).max)
        path = HERE / "stores" / f"{name}.zarr"
        store = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                         "metadata": {"shape": [9, 14], "data_type": type_name, "fill_value": fill,
                                      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 5]}},
                                      "codecs": codecs, "attributes": {"written_by": "tensorstore"}}},
                        create=True).result()
        values = rng.integers(lo, hi + 1, (9, 10)).astype(t)
        store[:, :10] = values  # the last chunk column stays unwritten: the fill value
        as_byte = np.uint8 if type_name.startswith("u") else np.int8
        data = np.full((9, 14), fill, dtype=as_byte)
        data[:, :10] = values.astype(as_byte)
        assert np.array_equal(store.read().result().astype(as_byte), data), name
        add_case(cases, name, data, type_name, ["", "1:8:2, 3:13", "6, :"])
    # uint2/uint4 (tensorstore lacks them) and int4, with junk in the upper bits of every byte
    for name, fill, bits, signed in [("uint4", 9, 4, False), ("uint2", 3, 2, False), ("int4_upper_bits", -8, 4, True)]:
        type_name = name.split("_")[0]
        t = getattr(ml_dtypes, type_name)
        lo, hi = int(ml_dtypes.iinfo(t).min), int(ml_dtypes.iinfo(t).max)
        data = rng.integers(lo, hi + 1, (11, 7)).astype(np.int8 if signed else np.uint8)
        data[8:, 4:] = fill
        mask = (1 << bits) - 1
        junk = np.random.default_rng(3)

        def encode(block, mask=mask):
            low = block.view(np.uint8) & mask
            return gzip.compress((low | (junk.integers(0, 256, block.shape, dtype=np.uint8) & ~np.uint8(mask)))
                                 .tobytes(), mtime=0)
        write_chunks(name, data, (4, 4), {"data_type": type_name, "fill_value": fill,
                                          "codecs": [{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 5}}]},
                     fill, encode)
        # ml_dtypes reads the low bits as the value
        if signed:
            back = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(HERE / "stores" / f"{name}.zarr")}}
                           ).result().read().result()
            assert np.array_equal(back.astype(np.int8), data), "tensorstore ignores the upper bits too"
        add_case(cases, name, data, type_name, ["", "2:11:3, 1:6"])


POINT = np.dtype([("x", "<f4"), ("y", "<f4")])
RECORD = np.dtype([("id", "<i4"), ("flags", "u1"), ("value", "<f8"), ("small", "i1"), ("point", POINT),
                   ("when", "<M8[s]"), ("label", "<U4"), ("ok", "?"), ("z", "<c8"), ("code", "V3")])
RECORD_FIELDS = [
    {"name": "id", "data_type": "int32"},
    {"name": "flags", "data_type": "uint8"},
    {"name": "value", "data_type": {"name": "float64"}},
    {"name": "small", "data_type": "int4"},
    {"name": "point", "data_type": {"name": "struct", "configuration": {"fields": [
        {"name": "x", "data_type": "float32"}, {"name": "y", "data_type": "float32"}]}}},
    {"name": "when", "data_type": {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}},
    {"name": "label", "data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 16}}},
    {"name": "ok", "data_type": "bool"},
    {"name": "z", "data_type": "complex64"},
    {"name": "code", "data_type": "r24"},
]


def records(rng, shape):
    data = np.zeros(shape, dtype=RECORD)
    n = int(np.prod(shape))
    data["id"] = rng.integers(-10**6, 10**6, shape)
    data["flags"] = rng.integers(0, 256, shape)
    data["value"] = rng.normal(0, 100, shape)
    data["small"] = rng.integers(-8, 8, shape)
    data["point"]["x"] = rng.normal(0, 1, shape)
    data["point"]["y"] = rng.normal(0, 1, shape)
    data["when"] = np.datetime64("2024-01-01T00:00:00", "s") + rng.integers(0, 10**7, shape).astype("m8[s]")
    data["label"] = np.array(["", "a", "zarr", "ünï", "日本", "🙂x"] * n)[:n].reshape(shape)
    data["ok"] = rng.integers(0, 2, shape).astype(bool)
    data["z"] = rng.normal(0, 1, shape) + 1j * rng.normal(0, 1, shape)
    data["code"] = np.frombuffer(rng.integers(0, 256, n * 3, dtype=np.uint8).tobytes(), dtype="V3").reshape(shape)
    return data


def structs(cases, rng):
    fill = np.zeros((), dtype=RECORD)
    fill["id"], fill["flags"], fill["value"], fill["small"] = -1, 255, np.nan, -8
    fill["point"] = (1.5, -2.0)
    fill["when"], fill["label"], fill["ok"], fill["z"] = np.datetime64("NaT"), "fill", True, 1 - 2j
    fill["code"] = np.frombuffer(b"\x01\x02\x03", dtype="V3")[0]
    fill_json = {"id": -1, "flags": 255, "value": "NaN", "small": -8, "point": {"x": 1.5, "y": -2.0},
                 "when": "NaT", "label": "fill", "ok": True, "z": [1.0, -2.0], "code": [1, 2, 3]}
    data = records(rng, (7, 5))
    data[4:, 2:] = fill
    junk = np.random.default_rng(4)
    small = RECORD.fields["small"][1]

    def encode(block, big=False):
        raw = bytearray(block.astype(RECORD.newbyteorder(">") if big else RECORD).tobytes())
        for e in range(block.size):  # int4: junk in the upper bits, which the bytes codec ignores
            raw[e * RECORD.itemsize + small] = (raw[e * RECORD.itemsize + small] & 0x0F) | int(junk.integers(0, 16)) << 4
        return ZSTD.encode(bytes(raw)) if not big else bytes(raw)
    struct = {"name": "struct", "configuration": {"fields": RECORD_FIELDS}}
    write_chunks("struct", data, (3, 2), {"data_type": struct, "fill_value": fill_json,
                                         "codecs": [BYTES_LE, {"name": "zstd", "configuration": {"level": 3}}]},
                 fill, encode)
    add_case(cases, "struct", data, "struct", ["", "1:7:2, 1:4", "5, :"], numpy_dtype=RECORD.descr)
    write_chunks("struct_big_endian", data, (4, 5), {"data_type": struct, "fill_value": fill_json,
                                                    "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]},
                 fill, lambda b: encode(b, big=True))
    add_case(cases, "struct_big_endian", data, "struct", ["", "2:6, 1:5"], numpy_dtype=RECORD.descr)

    # legacy "structured": [name, type] fields, base64 fill value, bytes without endian (little)
    legacy = np.dtype([("a", "<i2"), ("b", "<f4")])
    data = np.zeros(11, dtype=legacy)
    data["a"] = rng.integers(-1000, 1000, 11)
    data["b"] = rng.normal(0, 10, 11)
    lfill = np.array((7, 0.25), dtype=legacy)
    data[8:] = lfill
    write_chunks("structured_legacy", data, (4,), {
        "data_type": {"name": "structured", "configuration": {"fields": [["a", "int16"], ["b", "float32"]]}},
        "fill_value": base64.b64encode(lfill.tobytes()).decode(), "codecs": [{"name": "bytes"}]},
        lfill, lambda b: b.tobytes())
    add_case(cases, "structured_legacy", data, "struct", ["", "3:10:2"], numpy_dtype=legacy.descr)


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    rng = np.random.default_rng(17)
    cases = []
    narrow_ints(cases, rng)
    structs(cases, rng)
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
