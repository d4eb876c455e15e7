"""Arrays whose codecs no zarr library on this machine writes for us, written chunk by chunk
with numpy and numcodecs under hand-written metadata (as testdata/extensions does), plus
numpy's expected values:

- numcodecs checksums numpy/zarr-python 2 cannot write as v2 arrays (fletcher32,
  jenkins_lookup3, crc32 with location "end") and every numcodecs checksum as a v3
  `numcodecs.*` codec (the names zarr-python 3 writes);
- the registered v3 codecs of zarr-extensions: `bitround`, `packbits`, `scale_offset`,
  `cast_value` and `reshape` (also before `transpose` and under `sharding_indexed`);
- `checksums.json`: numcodecs' fletcher32 and jenkins_lookup3 of assorted byte strings, for
  the Java unit test of those functions.

The zarr-extensions sample arrays for `bitround` (written by zarrs) are copied in
unchanged apart from a `written_by` attribute (stores/zarrs_bitround_*.zarr).

Run from the repository root: .venv/bin/python testdata/codecs/generate_codecs.py
Rewrites testdata/codecs/{stores,expected,cases.json,checksums.json} (keeps the zarrs copies).
"""
import json
import pathlib
import shutil
import struct

import numcodecs
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SELECTIONS = ["", "1:7:2, 2:9", "4, :"]
LE = {"name": "bytes", "configuration": {"endian": "little"}}


def to_index(sel):
    if not sel.strip():
        return ()
    out = []
    for part in sel.split(","):
        part = part.strip()
        out.append(slice(*[int(b) if b.strip() else None for b in part.split(":")]) if ":" in part else int(part))
    return tuple(out)


def chunk_blocks(data, chunks, fill):
    """(chunk index, full-size block padded with fill) for every chunk of data."""
    grid = [(s + c - 1) // c for s, c in zip(data.shape, chunks)]
    for idx in np.ndindex(*grid):
        block = np.full(chunks, fill, dtype=data.dtype)
        region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, data.shape))
        block[tuple(slice(0, r.stop - r.start) for r in region)] = data[region]
        yield idx, block


def write_v3(name, data, chunks, data_type, fill_json, fill, codecs, encode, skip=()):
    """A v3 array, every chunk but those in skip written as encode(block)."""
    root = HERE / "stores" / f"{name}.zarr"
    root.mkdir(parents=True)
    meta = {"zarr_format": 3, "node_type": "array", "shape": list(data.shape), "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill_json, "codecs": codecs, "attributes": {"written_by": "numpy+numcodecs"}}
    (root / "zarr.json").write_text(json.dumps(meta, indent=1))
    for idx, block in chunk_blocks(data, chunks, fill):
        if idx in skip:
            continue
        key = root / "c" / "/".join(str(i) for i in idx)
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(encode(block))


def write_v2(name, data, chunks, dtype, fill_json, fill, filters, compressor, skip=()):
    """A v2 array encoded as zarr-python 2 does: the C-order chunk through each filter, then the compressor."""
    root = HERE / "stores" / f"{name}.zarr"
    root.mkdir(parents=True)
    meta = {"zarr_format": 2, "shape": list(data.shape), "chunks": list(chunks), "dtype": dtype,
            "fill_value": fill_json, "order": "C", "filters": [f for f, _ in filters] or None,
            "compressor": compressor[0] if compressor else None}
    (root / ".zarray").write_text(json.dumps(meta, indent=1))
    for idx, block in chunk_blocks(data, chunks, fill):
        if idx in skip:
            continue
        buf = np.ascontiguousarray(block.astype(dtype))
        for _, codec in filters:
            buf = codec.encode(buf)
        if compressor:
            buf = compressor[1].encode(buf)
        (root / ".".join(str(i) for i in idx)).write_bytes(bytes(buf))


def expected_reads(name, full):
    """The three reads of a 7 x 9 array, as raw little-endian bytes of numpy's values."""
    reads = []
    for i, sel in enumerate(SELECTIONS):
        got = np.ascontiguousarray(full[to_index(sel)])
        got = got.astype(got.dtype.newbyteorder("<"))
        exp = f"expected/{name}.{i}.bin"
        (HERE / exp).write_bytes(got.tobytes())
        reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
    return reads


def case(name, data_type, full):
    return {"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": data_type,
            "shape": list(full.shape), "reads": expected_reads(name, full)}


def with_missing(data, chunks, fill, skip):
    """data with the chunks in skip read back as the fill value."""
    out = data.copy()
    for idx in skip:
        out[tuple(slice(i * c, (i + 1) * c) for i, c in zip(idx, chunks))] = fill
    return out


def checksum_cases(rng):
    cases = []
    shape, chunks = (7, 9), (3, 4)
    skip = {(2, 2)}
    # v2: checksums zarr-python 2's numcodecs lacks, as filters and compressors
    specs = [
        ("v2_fletcher32_filter_zlib", "<i4", [numcodecs.Fletcher32()], numcodecs.Zlib(level=1)),
        ("v2_fletcher32_compressor_u1", "|u1", [], numcodecs.Fletcher32()),           # odd chunk bytes
        ("v2_jenkins_filter", "<f8", [numcodecs.JenkinsLookup3()], None),
        ("v2_jenkins_initval_prefix", "<i2", [], numcodecs.JenkinsLookup3(initval=4242, prefix=b"zarr")),
        ("v2_crc32_end_zstd", "<u4", [numcodecs.CRC32(location="end")], numcodecs.Zstd(level=1)),
        ("v2_adler32_end", "<i8", [], numcodecs.Adler32(location="end")),
    ]
    for name, dtype, filters, compressor in specs:
        data = (rng.normal(0, 1000, shape) if dtype[1] == "f" else rng.integers(0, 200, shape)).astype(dtype)
        fill = 3

        def config(c):
            conf = c.get_config()
            if conf["id"] == "jenkins_lookup3":
                conf["prefix"] = None if c.prefix is None else [int(b) for b in c.prefix]
            return conf
        write_v2(name, data, chunks, dtype, fill, fill, [(config(f), f) for f in filters],
                 (config(compressor), compressor) if compressor else None, skip)
        cases.append(case(name, {"i": "int", "u": "uint", "f": "float"}[dtype[1]] + str(8 * np.dtype(dtype).itemsize),
                          with_missing(data, chunks, fill, skip)))
    # v3: every numcodecs checksum under its numcodecs.* name, after bytes (and a compressor)
    zlib = numcodecs.Zlib(level=1)
    specs = [
        ("v3_numcodecs_crc32", "int32", {}, numcodecs.CRC32(), None),
        ("v3_numcodecs_crc32_end", "uint16", {"location": "end"}, numcodecs.CRC32(location="end"), None),
        ("v3_numcodecs_adler32_zlib", "float32", {}, numcodecs.Adler32(), zlib),
        ("v3_numcodecs_fletcher32", "int16", {}, numcodecs.Fletcher32(), None),
        ("v3_numcodecs_jenkins_lookup3", "float64", {"initval": 7, "prefix": None},
         numcodecs.JenkinsLookup3(initval=7), None),
    ]
    for name, data_type, conf, checksum, compressor in specs:
        data = (rng.normal(0, 50, shape) if data_type.startswith("float") else rng.integers(0, 300, shape)).astype(data_type)
        codecs = [LE, {"name": "numcodecs." + checksum.codec_id, "configuration": conf}]
        if compressor:
            codecs.append({"name": "numcodecs.zlib", "configuration": {"level": 1}})

        def encode(block, checksum=checksum, compressor=compressor):
            raw = bytes(checksum.encode(np.ascontiguousarray(block).astype(block.dtype.newbyteorder("<")).view("u1")))
            return bytes(compressor.encode(raw)) if compressor else raw
        write_v3(name, data, chunks, data_type, 0, 0, codecs, encode, skip)
        cases.append(case(name, data_type, with_missing(data, chunks, 0, skip)))
    return cases


def checksum_vectors(rng):
    """numcodecs' own checksums of byte strings of many lengths (block and tail edge cases)."""
    lengths = list(range(1, 40)) + [719, 720, 721, 722, 1441]
    out = {"fletcher32": [], "jenkins_lookup3": []}
    for n in lengths:
        data = rng.integers(0, 256, n, dtype=np.uint8)
        data[: n // 3] = 0xff                      # carries in the 16-bit sums
        out["fletcher32"].append([data.tobytes().hex(), struct.unpack(
            "<I", bytes(numcodecs.Fletcher32().encode(data))[-4:])[0]])
    for n in [0] + lengths:
        data = rng.integers(0, 256, n, dtype=np.uint8)
        for initval in (0, 1, 0xdeadbeef) if n < 26 else (0,):
            out["jenkins_lookup3"].append([data.tobytes().hex(), initval, struct.unpack(
                "<I", bytes(numcodecs.JenkinsLookup3(initval=initval).encode(data))[-4:])[0]])
    (HERE / "checksums.json").write_text(json.dumps(out, indent=0) + "\n")


def main():
    for d in (HERE / "stores").glob("*.zarr") if (HERE / "stores").exists() else []:
        if not d.name.startswith("zarrs_"):
            shutil.rmtree(d)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    rng = np.random.default_rng(3)
    cases = checksum_cases(rng)
    checksum_vectors(rng)
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
