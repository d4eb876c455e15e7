"""Zarr v3 arrays on the `rectilinear` chunk grid (zarr-extensions chunk-grids/rectilinear), written
chunk by chunk with numpy and numcodecs under hand-written metadata, plus numpy's expected values.

Every chunk is stored at its declared edge lengths (edge chunks padded with the fill value, as
on the regular grid); chunks declared past the end of the array are never written.

Run from the repository root: .venv/bin/python testdata/rectilinear/generate_rectilinear.py
Rewrites testdata/rectilinear/{stores,expected,cases.json}.
"""
import itertools
import json
import pathlib
import shutil
import struct
import sys

import numcodecs
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import to_index  # noqa: E402  (testdata/selection.py)
BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


def expand(entry, size):
    """The explicit edges of one chunk_shapes entry (the spec's expansion)."""
    if isinstance(entry, int):
        return [entry] * max(1, -(-size // entry))
    out = []
    for e in entry:
        out += [e[0]] * e[1] if isinstance(e, list) else [e]
    return out


def grid(chunk_shapes, shape):
    """Per dimension, the (start, edge) of every chunk that starts inside the array."""
    dims = []
    for entry, size in zip(chunk_shapes, shape):
        starts, at = [], 0
        for e in expand(entry, size):
            if at >= size and starts:
                break
            starts.append((at, e))
            at += e
        dims.append(starts)
    return dims


def write(name, data, chunk_shapes, data_type, fill, codecs, encode, skip=()):
    root = HERE / "stores" / f"{name}.zarr"
    root.mkdir(parents=True)
    meta = {"zarr_format": 3, "node_type": "array", "shape": list(data.shape), "data_type": data_type,
            "chunk_grid": {"name": "rectilinear",
                           "configuration": {"kind": "inline", "chunk_shapes": chunk_shapes}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill, "codecs": codecs, "attributes": {"written_by": "numpy+numcodecs"}}
    (root / "zarr.json").write_text(json.dumps(meta, indent=1))
    for idx in itertools.product(*[range(len(d)) for d in grid(chunk_shapes, data.shape)]):
        if idx in skip:
            continue
        starts = [grid(chunk_shapes, data.shape)[d][i] for d, i in enumerate(idx)]
        block = np.full([e for _, e in starts], fill, dtype=data.dtype)
        region = tuple(slice(s, min(s + e, n)) for (s, e), n in zip(starts, data.shape))
        block[tuple(slice(0, r.stop - r.start) for r in region)] = data[region]
        key = root / "c" / "/".join(str(i) for i in idx)
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(encode(block))


def shard(inner_shape, inner_encode):
    """Encodes a block as a sharding_indexed shard of inner chunks (index at the end, bytes only)."""
    def encode(block):
        counts = [b // i for b, i in zip(block.shape, inner_shape)]
        body, index = b"", []
        for idx in itertools.product(*[range(c) for c in counts]):
            region = tuple(slice(i * s, (i + 1) * s) for i, s in zip(idx, inner_shape))
            data = inner_encode(np.ascontiguousarray(block[region]))
            index.append((len(body), len(data)))
            body += data
        return body + b"".join(struct.pack("<QQ", o, n) for o, n in index)
    return encode


def main():
    for sub in ("stores", "expected"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    rng = np.random.default_rng(11)
    zstd = numcodecs.Zstd(level=3)
    gzip = numcodecs.GZip(level=5)
    cases = []

    def case(name, data, data_type, slices):
        reads = []
        for i, sel in enumerate(slices):
            got = np.array(data[to_index(sel)])
            exp = f"expected/{name}.{i}.bin"
            got.astype(got.dtype.newbyteorder("<")).tofile(HERE / exp)
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": data_type,
                      "shape": list(data.shape), "reads": reads})

    # explicit edges on dim 0, an integer (regular step, last chunk overflowing) on dim 1; zstd
    a = rng.integers(-2**31, 2**31, size=(10, 7), dtype="<i4")
    write("explicit_int", a, [[3, 5, 2], 4], "int32", 0, [BYTES, {"name": "zstd", "configuration":
          {"level": 3, "checksum": False}}], lambda b: zstd.encode(b.tobytes()))
    case("explicit_int", a, "int32", ["", "1:9, 2:6", "2:10:3, ::2", "4, :", "-1, 3:"])

    # the spec's example: every form, overflow by several chunks; gzip
    b = rng.standard_normal((6, 6, 6)).astype("<f8")
    write("spec_example", b, [[[1, 3], 3], [[4, 2]], [4, 4, 4]], "float64", "NaN",
          [BYTES, {"name": "gzip", "configuration": {"level": 5}}], lambda b: gzip.encode(b.tobytes()))
    case("spec_example", b, "float64", ["", "0:4, 1:5, 2:6", "::2, ::3, 5", "3, :, :"])

    # run-length pairs mixed with edges, a missing chunk (reads as fill), uint16, raw bytes
    c = rng.integers(0, 2**16, size=(23,), dtype="<u2")
    c[5:12] = 7
    write("runs_missing", c, [[[2, 2], 3, [4, 3], 9]], "uint16", 7, [BYTES], lambda b: b.tobytes(), skip={(3,)})
    case("runs_missing", c, "uint16", ["", "3:20:2", "7", "-9:"])

    # sharded on a rectilinear outer grid: shards of (4, 8) and (8, 8), inner chunks (4, 4), zstd inside
    d = rng.integers(0, 1000, size=(12, 8), dtype="<i2")
    inner = [BYTES, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}]
    sharding = {"name": "sharding_indexed", "configuration": {
        "chunk_shape": [4, 4], "codecs": inner, "index_codecs": [BYTES], "index_location": "end"}}
    write("sharded", d, [[4, 8], 8], "int16", 0, [sharding], shard((4, 4), lambda b: zstd.encode(b.tobytes())))
    case("sharded", d, "int16", ["", "2:11, 3:7", "5, :", "::5, ::3"])

    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1))


if __name__ == "__main__":
    main()
