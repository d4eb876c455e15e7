"""Core Zarr v3 fixtures written by tensorstore, with the values tensorstore reads back.

Run from the repository root: .venv/bin/python testdata/core/generate_core.py
Rewrites testdata/core/{stores,expected,cases.json}: every core data type, every core codec
and combination, both chunk key encodings with both separators, edge chunks, missing chunks,
every fill-value form, 0-d to 4-d arrays, and a nested hierarchy with an implicit group.
Expected values are C-order little-endian bytes of tensorstore's result (bool as 0/1 bytes,
complex as real, imaginary). Each case also records the fill_value as its zarr.json has it.
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

LE = {"name": "bytes", "configuration": {"endian": "little"}}
BE = {"name": "bytes", "configuration": {"endian": "big"}}
GZIP = {"name": "gzip", "configuration": {"level": 6}}
GZIP1 = {"name": "gzip", "configuration": {"level": 1}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
ZSTD_CK = {"name": "zstd", "configuration": {"level": 9, "checksum": True}}
CRC = {"name": "crc32c"}


def transpose(order):
    return {"name": "transpose", "configuration": {"order": order}}


def key_encoding(name, sep):
    return {"name": name, "configuration": {"separator": sep}}


def values(shape, dtype, rng):
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        v = rng.integers(0, 2, n).astype(bool)
    elif dtype.startswith("complex"):
        v = (rng.normal(0, 100, n) + 1j * rng.normal(0, 100, n)).astype(dtype)
    elif dtype.startswith("float"):
        v = rng.normal(0, 1000, n).astype(dtype)
        v[::17] = np.nan
        v[5::23] = np.inf
        v[7::29] = -np.inf
    else:
        info = np.iinfo(dtype)
        v = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return v.reshape(shape)


# name, shape, chunks, dtype, fill (JSON form), codecs, key encoding, selections, region written
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
FILL = {"bool": True, "int8": -7, "int16": 1234, "int32": -5, "int64": -9000000000, "uint8": 200,
        "uint16": 65535, "uint32": 4000000000, "uint64": 18446744073709551615, "float16": "Infinity",
        "float32": "NaN", "float64": -1.5, "complex64": [1.0, "NaN"], "complex128": ["-Infinity", 2.5]}
STANDARD_READS = ["", "1:12, 3:9", "::4, -1", "-3:, ::2"]

CASES = []
for dt in DTYPES:
    CASES.append((f"dtype_{dt}", [13, 10], [4, 3], dt, FILL[dt], [LE, ZSTD], None, STANDARD_READS, "partial"))
for dt in ["int16", "uint32", "float64", "complex64", "float16", "int64"]:
    CASES.append((f"big_endian_{dt}", [9, 11], [4, 4], dt, 0 if not dt.startswith("complex") else [0, 0],
                  [BE], None, ["", "1:8, 3:9", "::4, -1", "-3:, ::2"], "partial"))
CASES += [
    ("gzip", [30, 20], [7, 6], "int32", 0, [LE, GZIP], None, STANDARD_READS, "partial"),
    ("gzip_crc", [30, 20], [7, 6], "uint16", 3, [LE, GZIP1, CRC], None, STANDARD_READS, "partial"),
    ("zstd_checksum", [30, 20], [7, 6], "float32", 0.5, [LE, ZSTD_CK], None, STANDARD_READS, "partial"),
    ("crc_only", [30, 20], [7, 6], "int64", 0, [LE, CRC], None, STANDARD_READS, "partial"),
    ("transpose_3d", [11, 7, 5], [4, 3, 2], "int32", 0, [transpose([2, 0, 1]), LE, ZSTD], None,
     ["", "1:10:2, 2:7, 1:4", "3, :, 4", "-1, -1, -1"], "partial"),
    ("transpose_2d_big", [13, 10], [3, 5], "float64", 0, [transpose([1, 0]), BE, GZIP, CRC], None,
     STANDARD_READS, "partial"),
    ("transpose_4d", [5, 4, 6, 3], [2, 3, 4, 2], "uint8", 9, [transpose([3, 1, 0, 2]), LE, CRC], None,
     ["", "1:4, :, 2:5, 1", "4, 3, 5, 2"], "partial"),
    ("key_default_dot", [13, 10], [3, 3], "int16", 0, [LE], key_encoding("default", "."), STANDARD_READS, "partial"),
    ("key_v2_dot", [13, 10], [3, 3], "int16", 0, [LE], key_encoding("v2", "."), STANDARD_READS, "partial"),
    ("key_v2_slash", [13, 10], [3, 3], "int16", 0, [LE, ZSTD], key_encoding("v2", "/"), STANDARD_READS, "partial"),
    ("zero_d", [], [], "float64", "NaN", [LE], None, [""], "all"),
    ("zero_d_v2_key", [], [], "int32", 3, [LE, ZSTD], key_encoding("v2", "."), [""], "all"),
    ("one_d", [100], [16], "int32", -1, [LE, ZSTD], None, ["", "5:95:7", "-1", "17:33"], "partial"),
    ("never_written", [20, 20], [5, 5], "float32", "-Infinity", [LE, ZSTD], None, ["", "3:7, 2:19:3"], "none"),
    ("fill_raw_bits", [8, 8], [3, 3], "float32", "0x7fc00001", [LE], None, ["", "2:6, 1:7"], "partial"),
    ("large_step", [50, 9], [4, 9], "uint8", 1, [LE, GZIP], None, ["::13, :", "1:50:20, 3"], "partial"),
]

# Written after the hierarchy with their own random generator, so the cases above keep their bytes.
# name, shape, chunks, dtype, fill, codecs, key encoding, selections, region, dimension_names, attributes
EXTRA_CASES = [
    # zarr-python writes the separator explicitly; tensorstore drops it, so zarr.json is rewritten below
    ("key_default_slash_explicit", [13, 10], [4, 3], "int32", 0, [LE, ZSTD], key_encoding("default", "/"),
     STANDARD_READS + ["2:-2, -7:-1:2"], "partial", None, None),
    ("transpose_zstd_crc", [9, 8, 7], [4, 3, 5], "float32", "NaN", [transpose([1, 2, 0]), LE, ZSTD_CK, CRC], None,
     ["", "2:-2, ::5, -1", "-4:, 1:7:3, 2:6", "0, 0"], "partial", None, None),
    ("zero_d_complex", [], [], "complex128", [0.0, 0.0], [BE, GZIP], None, [""], "all", None, None),
    # interior chunks equal to the fill value everywhere: tensorstore does not store them
    ("sparse_interior", [40, 30], [6, 5], "float64", "NaN", [LE, GZIP1], None,
     ["", "6:24, 10:25", "7:20:5, 11:24:4", "5:25, 9:26", "-20:-10, 12", "-1"], "sparse",
     ["y", "x"], {"units": "m", "description": "chunks (1..3, 2..4) hold only the fill value and are not stored"}),
]


def write_array(path, shape, chunks, dtype, fill, codecs, encoding, region, rng, dims=None, attrs=None):
    metadata = {"shape": shape, "data_type": dtype,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                "codecs": codecs, "fill_value": fill}
    if encoding:
        metadata["chunk_key_encoding"] = encoding
    if dims:
        metadata["dimension_names"] = dims
    if attrs:
        metadata["attributes"] = attrs
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}, "metadata": metadata},
                create=True, delete_existing=True).result()
    data = values(shape, dtype, rng)
    if region == "all":
        t.write(data).result()
    elif region == "sparse":
        data[6:24, 10:25] = np.nan   # equals the NaN fill value: these chunks are left out
        t.write(data).result()
    elif region == "partial":
        # leave the last chunk row unwritten (missing chunks) and write the rest
        cut = tuple(slice(0, max(1, s - c)) if i == 0 else slice(0, s) for i, (s, c) in enumerate(zip(shape, chunks)))
        t[cut].write(data[cut]).result()
    return t


def record(t, name, store, path, dtype, shape, selections):
    reads = []
    for i, sel in enumerate(selections):
        got = t[to_index(sel, shape)].read().result()
        exp = f"expected/{name}.{i}.bin"
        arr = np.ascontiguousarray(got)
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False) if arr.dtype.kind not in "b" else arr.astype(np.uint8)
        (HERE / exp).write_bytes(arr.tobytes())
        reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
    fill = json.loads((HERE / store / path / "zarr.json").read_text())["fill_value"]
    return {"name": name, "store": store, "path": path, "data_type": dtype, "shape": shape, "fill_value": fill,
            "reads": reads}


def main():
    shutil.rmtree(STORES, ignore_errors=True)
    shutil.rmtree(EXPECTED, ignore_errors=True)
    STORES.mkdir(parents=True)
    EXPECTED.mkdir(parents=True)
    rng = np.random.default_rng(42)
    cases = []
    for name, shape, chunks, dtype, fill, codecs, encoding, selections, region in CASES:
        t = write_array(STORES / f"{name}.zarr", shape, chunks, dtype, fill, codecs, encoding, region, rng)
        cases.append(record(t, name, f"stores/{name}.zarr", "", dtype, shape, selections))

    # a hierarchy: root group, child group, an implicit group (no zarr.json), arrays at 3 depths
    h = STORES / "hierarchy.zarr"
    h.mkdir()
    (h / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group",
                                             "attributes": {"title": "nested", "version": 2}}))
    (h / "obs").mkdir()
    (h / "obs" / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group",
                                                    "attributes": {"kind": "observations"}}))
    arrays = [("top", [6, 5], [4, 4], "int32", ["y", "x"], {"units": "m"}),
              ("obs/temp", [12], [5], "float32", ["time"], {"units": "degC"}),
              ("obs/deep/sites/values", [4, 3, 2], [2, 2, 2], "uint16", ["site", "k", "j"], {}),
              ("model/run1/field", [7, 7], [3, 3], "float64", None, {"run": 1})]
    nodes = [{"path": "/", "kind": "group", "implicit": False}, {"path": "/obs", "kind": "group", "implicit": False},
             {"path": "/obs/deep", "kind": "group", "implicit": True},
             {"path": "/obs/deep/sites", "kind": "group", "implicit": True},
             {"path": "/model", "kind": "group", "implicit": True},
             {"path": "/model/run1", "kind": "group", "implicit": True}]
    attributes = {"/": {"title": "nested", "version": 2}, "/obs": {"kind": "observations"}}
    for path, shape, chunks, dtype, dims, attrs in arrays:
        t = write_array(h / path, shape, chunks, dtype, 0, [LE, ZSTD], None, "all", rng, dims, attrs)
        cases.append(record(t, "hierarchy_" + path.replace("/", "_"), "stores/hierarchy.zarr", path, dtype, shape,
                            ["", "1:3"]))
        nodes.append({"path": "/" + path, "kind": "array", "implicit": False})
        attributes["/" + path] = attrs

    rng = np.random.default_rng(43)
    for name, shape, chunks, dtype, fill, codecs, encoding, selections, region, dims, attrs in EXTRA_CASES:
        path = STORES / f"{name}.zarr"
        t = write_array(path, shape, chunks, dtype, fill, codecs, encoding, region, rng, dims, attrs)
        if encoding and encoding["name"] == "default" and encoding["configuration"]["separator"] == "/":
            meta = json.loads((path / "zarr.json").read_text())
            meta["chunk_key_encoding"] = encoding
            (path / "zarr.json").write_text(json.dumps(meta, sort_keys=True, separators=(",", ":")))
            t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}).result()
        cases.append(record(t, name, f"stores/{name}.zarr", "", dtype, shape, selections))

    doc = {"cases": cases, "hierarchy": {"store": "stores/hierarchy.zarr", "nodes": nodes, "attributes": attributes}}
    (HERE / "cases.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
