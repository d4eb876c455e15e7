"""Seeds the Jazzer fuzz corpora (zaro-arrow/src/test/resources/.../<Test>Inputs/<method>/)
from the small fixtures under testdata/, framed the way each fuzz test reads its input.

Decoded sizes come from numcodecs/zlib decoding the fixture chunks, shards for the sharding
harness are written by tensorstore. Writes only files named seed-*, so inputs the fuzzer found
(crash-* regression inputs and the like) are kept. Deterministic: rerunning gives the same files.

    .venv/bin/python testdata/fuzz/generate_seeds.py
"""
import gzip
import json
import pathlib
import shutil
import struct
import tempfile
import zlib

import numcodecs
import numpy as np
import tensorstore as ts

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"
RESOURCES = ROOT / "zaro-arrow/src/test/resources/dev/zaro/arrow"
MAX_DECODED = 1 << 20


def corpus(package, test, method):
    d = RESOURCES / package / f"{test}Inputs" / method
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("seed-*"):
        old.unlink()
    return d


def write(d, name, data):
    (d / f"seed-{name}").write_bytes(data)


def small(paths, limit=4096):
    return sorted(p for p in paths if p.stat().st_size <= limit)


def sized(mode, size, encoded):
    assert size <= MAX_DECODED
    return bytes([mode]) + size.to_bytes(3, "big") + encoded


def metadata():
    d = corpus("fuzz", "MetadataFuzzTest", "v3")
    for p in small(TESTDATA.glob("*/stores/*/zarr.json")):
        write(d, p.parent.parent.parent.name + "-" + p.parent.name, p.read_bytes())
    d = corpus("fuzz", "MetadataFuzzTest", "v2")
    for p in small([*TESTDATA.glob("v2*/stores/*/.zarray"), *TESTDATA.glob("v2*/stores/*/.zgroup")]):
        attrs = p.parent / ".zattrs"
        write(d, p.parent.name + p.name, p.read_bytes() + (b"\0" + attrs.read_bytes() if attrs.exists() else b""))
    d = corpus("fuzz", "ConsolidatedMetadataFuzzTest", "v2")
    for p in small(TESTDATA.glob("**/.zmetadata"), 8192):
        write(d, p.parent.parent.name + "-" + p.parent.name, p.read_bytes())
    d = corpus("fuzz", "ConsolidatedMetadataFuzzTest", "v3")
    write(d, "climate", (TESTDATA / "sample/climate.zarr/zarr.json").read_bytes())
    d = corpus("store", "ReferenceStoreFuzzTest", "parse")
    for p in small(TESTDATA.glob("kerchunk/*.json")):
        write(d, p.name, p.read_bytes())
        write(d, p.name + ".gz", gzip.compress(p.read_bytes(), mtime=0))


def selection():
    d = corpus("fuzz", "SelectionFuzzTest", "parse")
    shape = (10, 20, 30)
    head = bytes([len(shape)]) + b"".join(s.to_bytes(4, "big") for s in shape)
    for i, text in enumerate(["", ":", "2:7", "::3, 1", "-3:, ..., 5", "1:10:4, -1, 0:30:7", "..., 5:5",
                              " 3 : 9 : 2 ,:", "0, 1, 2"]):
        write(d, f"{i}", head + text.encode())


def v2_chunks(store):
    meta = json.loads((store / ".zarray").read_text())
    codec = numcodecs.get_codec(meta["compressor"])
    for p in sorted(store.iterdir()):
        if not p.name.startswith("."):
            yield p, len(codec.decode(p.read_bytes()))


def codecs():
    frames = sorted(TESTDATA.glob("blosc/cases/*.blosc"))
    chosen = [p for p in frames if p.stat().st_size <= 1024 and ("-ts1-" in p.name or "-ts4-" in p.name)
              and not p.name.endswith("-empty.blosc")] + [p for p in frames if p.name.endswith("-empty.blosc")][:1]
    d = corpus("fuzz", "CodecFuzzTest", "blosc")
    for i, p in enumerate(chosen):
        raw = p.with_suffix(".raw").read_bytes()
        write(d, p.stem, sized(i % 6, len(raw), p.read_bytes()))
    d = corpus("fuzz", "CodecFuzzTest", "lz4")
    for i, (p, size) in enumerate(v2_chunks(TESTDATA / "v2/stores/lz4_big_complex.zarr")):
        write(d, "lz4_big_complex-" + p.name, sized(i % 6, size, p.read_bytes()))
    d = corpus("fuzz", "CodecFuzzTest", "zstd")
    for i, (p, size) in enumerate([*v2_chunks(TESTDATA / "v2/stores/numcodecs_zstd.zarr"),
                                   *v2_chunks(TESTDATA / "v2/stores/zstd_i8.zarr")]):
        write(d, p.parent.name + "-" + p.name, sized(i % 6, size, p.read_bytes()))
    d = corpus("fuzz", "CodecFuzzTest", "gzip")
    for i, p in enumerate(sorted(f for f in (TESTDATA / "core/stores/gzip.zarr/c").rglob("*") if f.is_file())):
        data = p.read_bytes()
        write(d, "gzip-" + "-".join(p.relative_to(p.parents[3]).parts), sized(i % 6, len(gzip.decompress(data)), data))
    # the raw streams inside c-blosc frames: the first stream of the first block
    names = {0: "blosclz", 1: "lz4", 2: "snappy"}
    outs = {c: corpus("codec/blosc", "LzStreamFuzzTest", n) for c, n in names.items()}
    for p in frames:
        frame = p.read_bytes()
        if len(frame) <= 16 or len(frame) > 8192:
            continue
        _, _, flags, typesize, nbytes, blocksize, cbytes = struct.unpack("<BBBBIII", frame[:16])
        code = flags >> 5
        if code not in names or flags & 0x02 or nbytes == 0:
            continue
        block = min(blocksize, nbytes)
        split = not flags & 0x10 and typesize <= 16 and block % typesize == 0 and block // typesize >= 128
        streams = typesize if split else 1
        start = struct.unpack("<i", frame[16:20])[0]
        csize = struct.unpack("<i", frame[start:start + 4])[0]
        if csize == block // streams:
            continue  # stored, not compressed
        stream = frame[start + 4:start + 4 + csize]
        write(outs[code], p.stem, (block // streams).to_bytes(3, "big") + stream)


def shards():
    """4x4 uint16 shards, one per configuration of ShardIndexFuzzTest (its first input byte)."""
    d = corpus("fuzz", "ShardIndexFuzzTest", "shard")
    values = np.arange(16, dtype=np.uint16).reshape(4, 4) * 257
    for variant in range(16):
        inner = [1, 4] if variant & 8 else [2, 2]
        sharding = {"name": "sharding_indexed", "configuration": {
            "chunk_shape": inner,
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]
            + ([{"name": "crc32c"}] if variant & 4 else []),
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]
            + ([{"name": "crc32c"}] if variant & 2 else []),
            "index_location": "start" if variant & 1 else "end"}}
        with tempfile.TemporaryDirectory() as tmp:
            store = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": tmp},
                             "metadata": {"shape": [4, 4], "data_type": "uint16",
                                          "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
                                          "codecs": [sharding], "fill_value": 0}},
                            create=True, delete_existing=True).result()
            store[...] = values
            if variant % 3 == 0:
                store[0:inner[0], 0:inner[1]] = 0  # an inner chunk of fill values: absent from the index
            write(d, f"variant{variant}", bytes([variant]) + (pathlib.Path(tmp) / "c/0/0").read_bytes())


if __name__ == "__main__":
    metadata()
    selection()
    codecs()
    shards()
