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
import sys
from fractions import Fraction

import numcodecs
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import to_index  # noqa: E402  (testdata/selection.py)
SELECTIONS = ["", "1:7:2, 2:9", "4, :"]
LE = {"name": "bytes", "configuration": {"endian": "little"}}


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


def expected_reads(name, full, selections=SELECTIONS):
    """The reads (by default three of a 7 x 9 array), as raw little-endian bytes of numpy's values."""
    reads = []
    for i, sel in enumerate(selections):
        got = np.ascontiguousarray(full[to_index(sel)])
        got = got.astype(got.dtype.newbyteorder("<"))
        exp = f"expected/{name}.{i}.bin"
        (HERE / exp).write_bytes(got.tobytes())
        reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
    return reads


def case(name, data_type, full, selections=SELECTIONS):
    return {"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": data_type,
            "shape": list(full.shape), "reads": expected_reads(name, full, selections)}


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


def pack(block, first, last):
    """zarrs' packbits order: bits first..last of each component, least significant first."""
    flat = np.ascontiguousarray(block).ravel()
    if flat.dtype == bool:
        comps = flat.astype(np.uint64)
    else:
        width = flat.dtype.itemsize // (2 if flat.dtype.kind == "c" else 1)
        comps = flat.view(f"<u{width}").astype(np.uint64)
    k = last - first + 1
    comps = (comps >> np.uint64(first)) & np.uint64((1 << k) - 1)
    bits = ((comps[:, None] >> np.arange(k, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8).ravel()
    return np.packbits(bits, bitorder="little").tobytes(), (-len(bits)) % 8


def packbits_cases(rng):
    cases = []
    shape, chunks, skip = (7, 9), (3, 4), {(1, 1)}
    gzip = numcodecs.GZip(level=5)
    low32 = np.uint64(0xFFFFFFFF00000000)
    c64 = (rng.normal(0, 10, shape) + 1j * rng.normal(0, 10, shape)).astype("<c8")
    c64 = c64.view("<u4").__and__(np.uint32(0xFFFF0000)).view("<c8")
    specs = [  # name, data, data_type, fill (json, numpy), configuration, first, last, gzip after
        ("packbits_bool_first_byte", rng.random(shape) < 0.3, "bool", (False, False),
         {"padding_encoding": "first_byte"}, 0, 0, False),
        ("packbits_uint8_bits_2_5_gzip", (rng.integers(0, 256, shape) & 0x3C).astype("<u1"), "uint8", (0, 0),
         {"first_bit": 2, "last_bit": 5}, 2, 5, True),
        ("packbits_int16_10_bits_last_byte", rng.integers(-512, 512, shape).astype("<i2"), "int16", (-1, -1),
         {"padding_encoding": "last_byte", "last_bit": 9}, 0, 9, False),
        ("packbits_int8_bits_1_4", (rng.integers(-8, 8, shape) * 2).astype("<i1"), "int8", (0, 0),
         {"first_bit": 1, "last_bit": 4, "padding_encoding": "none"}, 1, 4, False),
        ("packbits_float64_high_32", (rng.normal(0, 1e3, shape).view("<u8") & low32).view("<f8"), "float64",
         (0.0, 0.0), {"first_bit": 32}, 32, 63, True),
        ("packbits_complex64_high_16", c64, "complex64", ([0.0, 0.0], 0), {"first_bit": 16, "last_bit": 31},
         16, 31, False),
        ("packbits_float32_whole_last_byte", rng.normal(0, 1, shape).astype("<f4"), "float32", (0.0, 0.0),
         {"padding_encoding": "last_byte"}, 0, 31, False),
        ("packbits_int32_whole", rng.integers(-2**31, 2**31, shape).astype("<i4"), "int32", (0, 0), {}, 0, 31, False),
    ]
    for name, data, data_type, (fill_json, fill), conf, first, last, compress in specs:
        codecs = [{"name": "packbits", "configuration": conf}]
        if compress:
            codecs.append({"name": "gzip", "configuration": {"level": 5}})
        padding = conf.get("padding_encoding", "none")

        def encode(block, first=first, last=last, padding=padding, compress=compress):
            packed, pad = pack(block, first, last)
            raw = {"none": packed, "first_byte": bytes([pad]) + packed, "last_byte": packed + bytes([pad])}[padding]
            return bytes(gzip.encode(raw)) if compress else raw
        write_v3(name, data, chunks, data_type, fill_json, fill, codecs, encode, skip)
        full = with_missing(data, chunks, fill, skip)
        cases.append(case(name, data_type, full.astype("u1") if data_type == "bool" else full))
    return cases


def write_sharded(name, data, shard, inner, data_type, fill_json, fill, codecs, encode_inner, skip_inner):
    """A v3 array whose last codec is sharding_indexed (inner chunks as encode_inner(block), index at
    the end, bytes only); inner chunks in skip_inner (shard index, inner index) and those wholly
    outside the array are left out."""
    sharding = {"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(inner), "codecs": [LE], "index_codecs": [LE], "index_location": "end"}}

    def encode_shard(block, idx):
        per = [s // c for s, c in zip(shard, inner)]
        body, index = b"", []
        for j in np.ndindex(*per):
            origin = [i * s + k * c for i, s, k, c in zip(idx, shard, j, inner)]
            if (idx, j) in skip_inner or any(o >= n for o, n in zip(origin, data.shape)):
                index.append((2**64 - 1, 2**64 - 1))
                continue
            part = encode_inner(block[tuple(slice(k * c, (k + 1) * c) for k, c in zip(j, inner))])
            index.append((len(body), len(part)))
            body += part
        return body + b"".join(struct.pack("<QQ", o, n) for o, n in index)
    root = HERE / "stores" / f"{name}.zarr"
    root.mkdir(parents=True)
    meta = {"zarr_format": 3, "node_type": "array", "shape": list(data.shape), "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shard)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill_json, "codecs": codecs + [sharding], "attributes": {"written_by": "numpy+numcodecs"}}
    (root / "zarr.json").write_text(json.dumps(meta, indent=1))
    for idx, block in chunk_blocks(data, shard, fill):
        key = root / "c" / "/".join(str(i) for i in idx)
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(encode_shard(block, idx))


def numeric_cases(rng):
    """scale_offset and cast_value; expected values are numpy's decoding of the stored values."""
    cases = []
    shape, chunks, skip = (7, 9), (3, 4), {(0, 1)}
    zstd = numcodecs.Zstd(level=1)
    zstd_json = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
    f32 = np.float32

    # scale_offset on float32 (float32 arithmetic both ways)
    data = rng.normal(20, 5, shape).astype("<f4")
    stored = ((data - f32(5)) * f32(0.1)).astype("<f4")
    write_v3("scale_offset_float32", stored, chunks, "float32", 5.0, f32(0), [
        {"name": "scale_offset", "configuration": {"offset": 5, "scale": 0.1}}, LE, zstd_json],
        lambda b: bytes(zstd.encode(b.tobytes())), skip)
    decoded = (stored / f32(0.1) + f32(5)).astype("<f4")
    cases.append(case("scale_offset_float32", "float32", with_missing(decoded, chunks, f32(5), skip)))
    # the zarr-extensions example as written there: float64 in [0, 2540] (NaN fill) as uint8,
    # NaN <-> 0 by scalar_map, in shards whose missing inner chunks hold the stored fill 0
    data = rng.uniform(0, 2540, shape)
    data[rng.random(shape) < 0.1] = np.nan
    stored = np.where(np.isnan(data), 0, np.rint((data - -10.0) * 0.1)).astype("<u1")
    skip_inner = {((0, 0), (1, 1)), ((1, 0), (0, 1))}
    codecs = [{"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
              {"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even",
                                                       "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}]
    write_sharded("scale_offset_cast_uint8_sharded", stored, (4, 6), (2, 3), "float64", "NaN", 0, codecs,
                  lambda b: b.astype("<u1").tobytes(), skip_inner)
    full = stored.copy()
    for (s0, s1), (i0, i1) in skip_inner:
        full[s0 * 4 + i0 * 2:s0 * 4 + i0 * 2 + 2, s1 * 6 + i1 * 3:s1 * 6 + i1 * 3 + 3] = 0
    decoded = np.where(full == 0, np.nan, full.astype("<f8") / 0.1 + -10.0)
    cases.append(case("scale_offset_cast_uint8_sharded", "float64", decoded))
    # the zarr-extensions example: uint16 in [1000, 1255] stored as uint8
    data = rng.integers(1000, 1256, shape).astype("<u2")
    write_v3("scale_offset_uint16_as_uint8", data, chunks, "uint16", 1000, 1000, [
        {"name": "scale_offset", "configuration": {"offset": 1000}},
        {"name": "cast_value", "configuration": {"data_type": "uint8"}}, LE],
        lambda b: (b - 1000).astype("<u1").tobytes(), skip)
    cases.append(case("scale_offset_uint16_as_uint8", "uint16", with_missing(data, chunks, 1000, skip)))
    # int32 (x + 3) * 4 in shards: a missing inner chunk holds the stored fill (7 + 3) * 4 = 40
    data = rng.integers(-1000, 1000, shape).astype("<i4")
    skip_inner = {((0, 1), (1, 0)), ((1, 0), (0, 0))}
    write_sharded("scale_offset_int32_sharded", ((data + 3) * 4).astype("<i4"), (4, 6), (2, 3), "int32", 7, 40,
                  [{"name": "scale_offset", "configuration": {"offset": -3, "scale": 4}}],
                  lambda b: b.astype("<i4").tobytes(), skip_inner)
    full = data.copy()
    for (s0, s1), (i0, i1) in skip_inner:
        full[s0 * 4 + i0 * 2:s0 * 4 + i0 * 2 + 2, s1 * 6 + i1 * 3:s1 * 6 + i1 * 3 + 3] = 7
    cases.append(case("scale_offset_int32_sharded", "int32", full))

    # cast_value: float32 stored as float16 (numpy's nearest-even cast); NaN fill
    data = rng.normal(0, 300, shape).astype("<f4")
    stored = data.astype("<f2")
    write_v3("cast_float32_as_float16", stored, chunks, "float32", "NaN", np.float16("nan"), [
        {"name": "cast_value", "configuration": {"data_type": "float16"}}, LE], lambda b: b.tobytes(), skip)
    cases.append(case("cast_float32_as_float16", "float32", with_missing(stored.astype("<f4"), chunks, f32("nan"), skip)))
    # int8 from stored float32: nearest-away, clamp, NaN -> -128 (decoding rounds, clamps, maps)
    values = np.array([0.5, -0.5, 1.5, -2.5, 2.4999998, 126.5, 127.5, -128.5, 300.0, -1000.0, np.nan, -0.4, 3.0,
                       1e30, -7.5], dtype="<f4")
    stored = rng.choice(values, shape).astype("<f4")
    write_v3("cast_int8_from_float32_away_clamp", stored, chunks, "int8", 0, f32(0), [
        {"name": "cast_value", "configuration": {
            "data_type": "float32", "rounding": "nearest-away", "out_of_range": "clamp",
            "scalar_map": {"encode": [[-128, "NaN"]], "decode": [["NaN", -128], ["NaN", 5]]}}}, LE],
        lambda b: b.tobytes(), skip)
    v = stored.astype("<f8")
    decoded = np.where(np.isnan(v), -128, np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), -128, 127)).astype("<i1")
    cases.append(case("cast_int8_from_float32_away_clamp", "int8", with_missing(decoded, chunks, 0, skip)))
    # uint8 from stored int16, wrapping (numpy's astype wraps too)
    stored = rng.integers(-300, 600, shape).astype("<i2")
    write_v3("cast_uint8_from_int16_wrap", stored, chunks, "uint8", 9, 9, [
        {"name": "cast_value", "configuration": {"data_type": "int16", "out_of_range": "wrap"}}, LE],
        lambda b: b.astype("<i2").tobytes(), skip)
    cases.append(case("cast_uint8_from_int16_wrap", "uint8", with_missing(stored.astype("<u1"), chunks, 9, skip)))
    # float32 from stored float64, towards-negative (numpy: nearest, then one step down where above)
    stored = rng.normal(0, 1e3, shape)
    stored[0, :3] = [1e-46, -1e-46, 3e-39]          # below and at float32's subnormals
    write_v3("cast_float32_from_float64_down", stored, chunks, "float32", 0.0, 0.0, [
        {"name": "cast_value", "configuration": {"data_type": "float64", "rounding": "towards-negative"}}, LE],
        lambda b: b.tobytes(), skip)
    down = stored.astype("<f4")
    above = down.astype("<f8") > stored
    down[above] = np.nextafter(down[above], np.float32(-np.inf))
    cases.append(case("cast_float32_from_float64_down", "float32", with_missing(down, chunks, f32(0), skip)))
    # float32 from stored float64, nearest-even, clamp: beyond float32's range is infinity
    stored = rng.normal(0, 1e3, shape)
    stored[1, :4] = [1e39, -1e39, 3.4028235e38 * (1 + 2**-25), 3.4028235e38 * (1 + 2**-23)]
    write_v3("cast_float32_from_float64_clamp", stored, chunks, "float32", 0.0, 0.0, [
        {"name": "cast_value", "configuration": {"data_type": "float64", "out_of_range": "clamp"}}, LE],
        lambda b: b.tobytes(), skip)
    with np.errstate(over="ignore"):
        nearest = stored.astype("<f4")
    cases.append(case("cast_float32_from_float64_clamp", "float32", with_missing(nearest, chunks, f32(0), skip)))
    # uint16 from stored float64, towards-zero (numpy's truncation)
    stored = rng.uniform(-0.9, 65535.9, shape)
    write_v3("cast_uint16_from_float64_trunc", stored, chunks, "uint16", 1, 1.0, [
        {"name": "cast_value", "configuration": {"data_type": "float64", "rounding": "towards-zero"}}, LE],
        lambda b: b.tobytes(), skip)
    cases.append(case("cast_uint16_from_float64_trunc", "uint16",
                      with_missing(np.trunc(stored).astype("<u2"), chunks, 1, skip)))
    return cases


def round_to(value, dtype, mode):
    """An integer or float rounded to the float type dtype by mode, with exact rationals: the
    neighbours below and above come from numpy's nextafter, the choice from Fraction arithmetic."""
    dtype = np.dtype(dtype)
    x = Fraction(int(value)) if isinstance(value, (int, np.integer)) else Fraction(float(value))
    c = dtype.type(float(x))
    lower = c if Fraction(float(c)) <= x else np.nextafter(c, dtype.type(-np.inf))
    upper = c if Fraction(float(c)) >= x else np.nextafter(c, dtype.type(np.inf))
    if Fraction(float(lower)) == x:
        return lower
    below, above = x - Fraction(float(lower)), Fraction(float(upper)) - x
    if mode == "towards-positive":
        return upper
    if mode == "towards-negative":
        return lower
    if mode == "towards-zero":
        return lower if x > 0 else upper
    if below != above:
        return lower if below < above else upper
    if mode == "nearest-away":
        return upper if x > 0 else lower
    return lower if int(np.array(lower).view(f"u{dtype.itemsize}")) % 2 == 0 else upper


def rounding_cases(rng):
    """cast_value's rounding modes at the edges: half floats and subnormals, 64-bit integers."""
    cases = []
    shape, chunks = (7, 9), (3, 4)
    specs = []
    # float16 from float32, towards-positive (subnormals, ties, negatives)
    v = rng.normal(0, 100, shape).astype("<f4")
    v.flat[:6] = [1e-6, -1e-6, 7e-8, -7e-8, 1.00048828125, -65000.5]
    specs.append(("cast_float16_from_float32_up", "float16", "float32", v, "towards-positive",
                  [round_to(x, "f2", "towards-positive") for x in v.flat]))
    # float16 from float32, nearest-even: ties (1 + 2**-11 lies halfway between 1 and 1 + 2**-10)
    v = rng.normal(0, 100, shape).astype("<f4")
    v.flat[:5] = [1 + 2**-11, 1 + 3 * 2**-11, -(1 + 3 * 2**-11), 2**-25, 3 * 2**-25]
    even = [round_to(x, "f2", "nearest-even") for x in v.flat]
    assert np.array_equal(np.array(even, dtype="f2"), v.astype("f2").ravel())    # the helper agrees with numpy
    specs.append(("cast_float16_from_float32_even", "float16", "float32", v, "nearest-even", even))
    # float32 from int64, nearest-away (ties such as 2**24 + 1 go away from zero)
    v = rng.integers(-2**62, 2**62, shape, dtype=np.int64)
    v.flat[:6] = [2**24 + 1, -(2**24 + 1), 2**25 + 2, 2**26 + 4, 2**62 + 2**37, -(2**63)]
    specs.append(("cast_float32_from_int64_away", "float32", "int64", v, "nearest-away",
                  [round_to(int(x), "f4", "nearest-away") for x in v.flat]))
    # float64 from uint64 above 2**63, towards-zero
    v = rng.integers(2**63, 2**64 - 1, shape, dtype=np.uint64, endpoint=True)
    v.flat[:3] = [2**64 - 1, 2**63 + 1025, 2**53 + 1]
    specs.append(("cast_float64_from_uint64_zero", "float64", "uint64", v, "towards-zero",
                  [round_to(int(x), "f8", "towards-zero") for x in v.flat]))
    # uint64 from float64 (nearest-even to integers; values above 2**63)
    v = rng.uniform(0, 1.8e19, shape)
    v.flat[:4] = [0.5, 1.5, 2.5, 2.0**63]
    specs.append(("cast_uint64_from_float64", "uint64", "float64", v, "nearest-even",
                  [np.uint64(round(Fraction(float(x)))) for x in v.flat]))
    # int64 from float64, towards-negative
    v = rng.normal(0, 2**61, shape)
    v.flat[:4] = [-0.5, -2.0**63, 0.25, -1.75]
    specs.append(("cast_int64_from_float64_floor", "int64", "float64", v, "towards-negative",
                  [np.int64(int(np.floor(x))) for x in v.flat]))
    for name, array_type, stored_type, stored, mode, values in specs:
        stored = np.ascontiguousarray(stored.astype(stored.dtype.newbyteorder("<")))
        write_v3(name, stored, chunks, array_type, 0, 0, [
            {"name": "cast_value", "configuration": {"data_type": stored_type, "rounding": mode}}, LE],
            lambda b: b.tobytes())
        cases.append(case(name, array_type, np.array(values, dtype=array_type).reshape(shape)))
    return cases


def reshape_and_bitround_cases(rng):
    cases = []
    zstd = numcodecs.Zstd(level=1)
    zstd_json = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
    data = rng.integers(-30000, 30000, (6, 8, 10)).astype("<i2")
    skip = {(1, 1, 1)}
    write_v3("reshape_3d_to_2d", data, (3, 4, 5), "int16", 0, 0, [
        {"name": "reshape", "configuration": {"shape": [[0, 1], [2]]}}, LE, zstd_json],
        lambda b: bytes(zstd.encode(b.tobytes())), skip)
    cases.append(case("reshape_3d_to_2d", "int16", with_missing(data, (3, 4, 5), 0, skip),
                      ["", "1:6:2, 2:7, 3:9", "4, :, 1"]))
    data = rng.normal(0, 1, (7, 9)).astype("<f4")
    write_v3("reshape_minus_one_transpose", data, (3, 4), "float32", 0.0, 0.0, [
        {"name": "reshape", "configuration": {"shape": [-1, 2]}},
        {"name": "transpose", "configuration": {"order": [1, 0]}}, LE],
        lambda b: np.ascontiguousarray(b.reshape(6, 2).T).tobytes(), {(2, 2)})
    cases.append(case("reshape_minus_one_transpose", "float32", with_missing(data, (3, 4), 0, {(2, 2)})))
    data = rng.integers(0, 256, (7, 9)).astype("u1")
    write_v3("reshape_split_dim", data, (4, 6), "uint8", 0, 0, [
        {"name": "reshape", "configuration": {"shape": [2, 2, [1]]}}, {"name": "bytes"}], lambda b: b.tobytes())
    cases.append(case("reshape_split_dim", "uint8", data))
    # bitround: numcodecs' BitRound wrote the values (decoding changes nothing)
    rounded = numcodecs.BitRound(keepbits=5).encode(rng.normal(0, 1e3, (7, 9)).astype("<f4")).reshape(7, 9)
    write_v3("bitround_float32", rounded, (3, 4), "float32", 0.0, 0.0, [
        {"name": "bitround", "configuration": {"keepbits": 5}}, LE, zstd_json],
        lambda b: bytes(zstd.encode(b.tobytes())), {(1, 2)})
    cases.append(case("bitround_float32", "float32", with_missing(rounded, (3, 4), 0, {(1, 2)})))
    # zarrs' sample arrays from zarr-extensions (codecs/bitround/sample_data): numpy reads their one
    # chunk; the values are the "Rounded" column of that README
    readme = {"float32": [0.0, 0.1015625, 1.25, 12.0, 120.0, 1280.0, np.nan, np.inf, -np.inf],
              "uint8": [0, 1, 10, 12, 96, 128, 192, 192, 224, 224]}
    for dt, want in readme.items():
        name = f"zarrs_bitround_{dt}"
        got = np.frombuffer((HERE / "stores" / f"{name}.zarr" / "c" / "0").read_bytes(), dtype=f"<{np.dtype(dt).str[1:]}")
        np.testing.assert_array_equal(got, np.array(want, dtype=dt))
        cases.append(case(name, dt, got, ["", "2:8:3"]))
    return cases


def main():
    for d in (HERE / "stores").glob("*.zarr") if (HERE / "stores").exists() else []:
        if not d.name.startswith("zarrs_"):
            shutil.rmtree(d)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    rng = np.random.default_rng(3)
    cases = checksum_cases(rng) + packbits_cases(rng) + numeric_cases(rng) + rounding_cases(rng)
    cases += reshape_and_bitround_cases(rng)
    checksum_vectors(rng)
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
