"""Zarr v2 fixtures: arrays written by tensorstore and by zarr-python 2, with the values those
libraries read back.

Run from the repository root:  .venv/bin/python testdata/v2/generate_v2.py
Rewrites testdata/v2/{stores,expected,cases.json}. Two writers, both independent of zaro:

- tensorstore's "zarr" driver (this .venv): every numeric dtype in both byte orders, order F
  (1-4 d), both dimension separators, fill values (null, numbers, NaN, +-Infinity, complex),
  missing chunks, 0-d, and the compressors tensorstore writes (blosc with every cname and
  shuffle, zlib, gzip, zstd, bz2). Expected values: tensorstore's reads.
- zarr-python 2 with numcodecs (Debian's python3-zarr 2.13 / numcodecs 0.11 / numpy 1.24 under
  /usr/bin/python3, or $ZARR2_PYTHON): every numcodecs filter (delta, fixedscaleoffset,
  quantize, bitround, astype, shuffle, packbits, chained, with order F, big endian), the lz4,
  lzma (xz, alone, raw) compressors, nested groups with .zattrs and _ARRAY_DIMENSIONS,
  consolidated .zmetadata. Expected values: zarr-python's reads. This script re-runs itself
  under that interpreter with --zarr2 (install it with: apt-get install -y python3-zarr).

Every store is also read by the other library where it can (tensorstore reads v2 without
filters; zarr-python reads everything) and the script stops if the two disagree.
Expected files are C-order little-endian bytes (bool as 0/1 bytes, complex as real, imaginary).
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
STORES = HERE / "stores"
EXPECTED = HERE / "expected"
ZARR2_PYTHON = os.environ.get("ZARR2_PYTHON", "/usr/bin/python3")

NAMES = {"b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u1": "uint8", "u2": "uint16",
         "u4": "uint32", "u8": "uint64", "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64",
         "c16": "complex128"}
STANDARD_READS = ["", "1:12, 3:9", "::4, -1", "-3:, ::2"]


def v3_name(typestr):
    return NAMES[typestr[1:]]


def values(shape, typestr, rng):
    dt = np.dtype(typestr)
    n = int(np.prod(shape)) if shape else 1
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
    elif dt.kind == "c":
        v = (rng.normal(0, 100, n) + 1j * rng.normal(0, 100, n)).astype(dt)
    elif dt.kind == "f":
        v = rng.normal(0, 1000, n).astype(dt)
        v[::17] = np.nan
        v[5::23] = np.inf
        v[7::29] = -np.inf
    else:
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt.newbyteorder("="), endpoint=True).astype(dt)
    return v.reshape(shape)


def parse_selection(sel, shape):
    """A numpy-style selection string as a tuple (tensorstore=True: no negative indices)."""
    if not sel.strip():
        return ()
    out = []
    for d, part in enumerate(sel.split(",")):
        part = part.strip()
        if ":" in part:
            bits = [int(b) if b.strip() else None for b in part.split(":")]
            bits += [None] * (3 - len(bits))
            out.append(slice(*bits))
        else:
            out.append(int(part))
    return tuple(out)


def ts_index(sel, shape):
    out = []
    for d, s in enumerate(parse_selection(sel, shape)):
        n = shape[d]
        if isinstance(s, slice):
            start = None if s.start is None else (s.start + n if s.start < 0 else s.start)
            stop = None if s.stop is None else (s.stop + n if s.stop < 0 else s.stop)
            out.append(slice(start, stop, s.step))
        else:
            out.append(s + n if s < 0 else s)
    return tuple(out)


def to_le_bytes(arr):
    arr = np.ascontiguousarray(arr)
    if arr.dtype.kind == "b":
        return arr.astype(np.uint8).tobytes()
    return arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()


def write_reads(name, read, selections, shape):
    """Writes expected/<name>.<i>.bin for every selection; read(sel) returns the library's result."""
    reads = []
    for i, sel in enumerate(selections):
        got = np.asarray(read(sel))
        exp = f"expected/{name}.{i}.bin"
        (HERE / exp).write_bytes(to_le_bytes(got))
        reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
    return reads


def partial_region(shape, chunks):
    """Everything but the last chunk row: the chunks there stay missing."""
    return tuple(slice(0, max(1, s - c)) if i == 0 else slice(0, s) for i, (s, c) in enumerate(zip(shape, chunks)))


# ---------------------------------------------------------------------------------------------
# tensorstore part

BLOSC = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}
ZLIB = {"id": "zlib", "level": 5}
GZIP = {"id": "gzip", "level": 6}
ZSTD = {"id": "zstd", "level": 3}
BZ2 = {"id": "bz2", "level": 9}
COMPRESSORS = [None, ZLIB, GZIP, ZSTD, BLOSC, BZ2]

FILL = {"|b1": True, "|i1": -7, "<i2": 1234, "<i4": -5, "<i8": -9000000000, "|u1": 200, "<u2": 65535,
        "<u4": 4000000000, "<u8": 18446744073709551615, "<f2": "Infinity", "<f4": "NaN", "<f8": -1.5,
        "<c8": [1.0, "NaN"], "<c16": ["-Infinity", 2.5]}


def blosc(cname, shuffle, clevel=5):
    return {"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": shuffle, "blocksize": 0}


def ts_cases():
    # name, shape, chunks, dtype, fill, compressor, order, separator, region, reads
    cases = []
    for i, (dt, fill) in enumerate(FILL.items()):
        cases.append((f"dtype_{v3_name(dt)}", [13, 10], [4, 3], dt, fill, COMPRESSORS[i % len(COMPRESSORS)], "C",
                      None, "partial", STANDARD_READS))
    for i, dt in enumerate([">i2", ">i4", ">i8", ">u2", ">u4", ">u8", ">f2", ">f4", ">f8", ">c8", ">c16"]):
        fill = [0.5, -2.0] if dt[1] == "c" else (None if i % 3 == 0 else 3)
        cases.append((f"big_{v3_name(dt)}", [9, 11], [4, 4], dt, fill, COMPRESSORS[(i + 1) % len(COMPRESSORS)], "C",
                      None, "partial", ["", "1:8, 3:9", "::4, -1", "-3:, ::2"]))
    cases += [
        ("order_f_2d", [13, 10], [4, 3], "<i4", 0, ZLIB, "F", None, "partial", STANDARD_READS),
        ("order_f_3d", [11, 7, 5], [4, 3, 2], "<f8", "NaN", BLOSC, "F", None, "partial",
         ["", "1:10:2, 2:7, 1:4", "3, :, 4", "-1, -1, -1"]),
        ("order_f_4d", [5, 4, 6, 3], [2, 3, 4, 2], "|u1", 9, None, "F", None, "partial",
         ["", "1:4, :, 2:5, 1", "4, 3, 5, 2"]),
        ("order_f_big", [9, 11], [4, 4], ">f4", 0, ZSTD, "F", None, "partial", ["", "1:8, 3:9", "::4, -1"]),
        ("order_f_complex", [6, 5], [4, 2], ">c16", [1, 2], BZ2, "F", "/", "partial", ["", "1:5, 1:4"]),
        ("sep_slash", [13, 10], [3, 3], "<i2", 0, ZSTD, "C", "/", "partial", STANDARD_READS),
        ("sep_dot", [13, 10], [3, 3], "<i2", 0, None, "C", ".", "partial", STANDARD_READS),
        ("sep_slash_3d", [7, 6, 5], [2, 3, 2], "<u4", 0, None, "C", "/", "partial", ["", "1:6, ::2, 3"]),
        ("fill_null_float", [13, 10], [4, 3], "<f8", None, ZLIB, "C", None, "partial", STANDARD_READS),
        ("fill_null_never_written", [8, 8], [3, 3], "<i4", None, None, "C", None, "none", ["", "2:7, 1:8:3"]),
        ("fill_neg_infinity", [20, 20], [5, 5], "<f4", "-Infinity", ZSTD, "C", None, "none", ["", "3:7, 2:19:3"]),
        ("fill_integral_float", [10, 10], [3, 3], "<f8", 2, GZIP, "C", None, "partial", ["", "8:, :"]),
        ("zero_d", [], [], "<f8", "NaN", ZLIB, "C", None, "all", [""]),
        ("zero_d_missing", [], [], "<i4", 42, None, "C", None, "none", [""]),
        ("one_d", [100], [16], "<i4", -1, blosc("zstd", 2), "C", None, "partial", ["", "5:95:7", "-1", "17:33"]),
        ("large_step", [50, 9], [4, 9], "|u1", 1, GZIP, "C", None, "partial", ["::13, :", "1:50:20, 3"]),
    ]
    for cname in ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]:
        for shuffle in [0, 1, 2]:
            cases.append((f"blosc_{cname}_{shuffle}", [30, 20], [8, 7], "<f4" if shuffle != 2 else "<i8", 0,
                          blosc(cname, shuffle, 1 if cname == "zstd" else 5), "C", None, "partial", STANDARD_READS))
    for level in [0, 1, 9]:
        cases.append((f"zlib_{level}", [30, 20], [8, 7], "<u2", 0, {"id": "zlib", "level": level}, "C", None,
                      "partial", STANDARD_READS))
    cases.append(("gzip_f2", [30, 20], [8, 7], "<f2", 0, {"id": "gzip", "level": 1}, "C", None, "partial",
                  STANDARD_READS))
    cases.append(("zstd_i8", [30, 20], [8, 7], "<i8", 0, {"id": "zstd", "level": 19}, "C", None, "partial",
                  STANDARD_READS))
    cases.append(("bz2_1", [30, 20], [8, 7], "<c8", [0, 0], {"id": "bz2", "level": 1}, "C", None, "partial",
                  STANDARD_READS))
    return cases


def run_tensorstore(rng):
    import tensorstore as ts
    out = []
    for name, shape, chunks, dt, fill, compressor, order, sep, region, selections in ts_cases():
        metadata = {"shape": shape, "chunks": chunks, "dtype": dt, "fill_value": fill, "compressor": compressor,
                    "order": order, "filters": None}
        if sep:
            metadata["dimension_separator"] = sep
        path = STORES / f"{name}.zarr"
        t = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": str(path)}, "metadata": metadata},
                    create=True, delete_existing=True).result()
        data = values(shape, dt, rng)
        if region == "all":
            t.write(data).result()
        elif region == "partial":
            cut = partial_region(shape, chunks)
            t[cut].write(data[cut]).result()
        reads = write_reads(name, lambda sel: t[ts_index(sel, shape)].read().result(), selections, shape)
        out.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": v3_name(dt), "shape": shape,
                    "reads": reads, "writer": "tensorstore", "fill_null": fill is None})
    return out


def check_with_tensorstore(cases):
    """tensorstore reads the zarr-python stores it can (no filters, compressors it knows)."""
    import tensorstore as ts
    checked = 0
    for c in cases:
        store = HERE / c["store"]
        meta = json.loads((store / c["path"] / ".zarray").read_text()) if (store / c["path"] / ".zarray").exists() \
            else None
        if meta is None or meta.get("filters") or (meta["compressor"] or {}).get("id") in ("lz4", "lzma"):
            continue
        t = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": str(store / c["path"])}}).result()
        for r in c["reads"]:
            got = t[ts_index(r["slice"], c["shape"])].read().result()
            want = (HERE / r["expected"]).read_bytes()
            assert to_le_bytes(got) == want, f"tensorstore disagrees with zarr-python on {c['name']}[{r['slice']}]"
        checked += 1
    print(f"tensorstore agrees with zarr-python on {checked} stores")


# ---------------------------------------------------------------------------------------------
# zarr-python 2 part (runs under ZARR2_PYTHON)

def zarr2_cases(rng):
    import lzma

    import numcodecs as nc

    def smooth(shape, dt, scale=100.0, offset=0.0):
        n = int(np.prod(shape))
        v = offset + scale * np.sin(np.arange(n) / 7.0) + rng.normal(0, scale / 50, n)
        return v.astype(dt).reshape(shape)

    def walk(shape, dt, step=50):
        n = int(np.prod(shape))
        return np.cumsum(rng.integers(-step, step, n)).astype(dt).reshape(shape)

    raw = [{"id": lzma.FILTER_DELTA, "dist": 4}, {"id": lzma.FILTER_LZMA2, "preset": 1}]
    s2 = [13, 10]
    c2 = [4, 3]
    # name, shape, chunks, dtype, fill, compressor, filters, order, data, reads
    return [
        ("delta_i8_as_i2", s2, c2, "<i8", 0, nc.Zlib(1), [nc.Delta("<i8", astype="<i2")], "C",
         walk(s2, "<i8"), STANDARD_READS),
        ("delta_u1_wraps", s2, c2, "|u1", 0, nc.LZ4(), [nc.Delta("|u1")], "C",
         values(s2, "|u1", rng), STANDARD_READS),
        ("delta_f4", s2, c2, "<f4", "NaN", None, [nc.Delta("<f4")], "C", smooth(s2, "<f4"), STANDARD_READS),
        ("delta_f8_from_f4", s2, c2, "<f8", 0, None, [nc.Delta("<f8", astype="<f4")], "C", smooth(s2, "<f8"),
         STANDARD_READS),
        ("delta_f2", s2, c2, "<f2", 0, None, [nc.Delta("<f2")], "C", smooth(s2, "<f2", 10.0), STANDARD_READS),
        ("delta_big_i4", s2, c2, ">i4", 7, nc.Zstd(3), [nc.Delta(">i4")], "C", walk(s2, ">i4"), STANDARD_READS),
        ("delta_order_f_3d", [11, 7, 5], [4, 3, 2], "<i4", -1, nc.BZ2(5), [nc.Delta("<i4", astype="<i2")], "F",
         walk([11, 7, 5], "<i4", 20), ["", "1:10:2, 2:7, 1:4", "3, :, 4"]),
        ("fixedscaleoffset_f8_u2", s2, c2, "<f8", 0, nc.Zlib(5),
         [nc.FixedScaleOffset(offset=1000, scale=10, dtype="<f8", astype="<u2")], "C",
         smooth(s2, "<f8", 100.0, 1500.0), STANDARD_READS),
        ("fixedscaleoffset_f4_i1", s2, c2, "<f4", 0, None,
         [nc.FixedScaleOffset(offset=0.25, scale=50.0, dtype="<f4", astype="<i1")], "C",
         smooth(s2, "<f4", 2.0, 0.25), STANDARD_READS),
        ("fixedscaleoffset_f4_f4", s2, c2, "<f4", 0, None,
         [nc.FixedScaleOffset(offset=0.1, scale=3.0, dtype="<f4", astype="<f4")], "C",
         smooth(s2, "<f4", 5.0), STANDARD_READS),
        ("fixedscaleoffset_i4_u1", s2, c2, "<i4", 0, None,
         [nc.FixedScaleOffset(offset=-100, scale=1, dtype="<i4", astype="|u1")], "C",
         rng.integers(-100, 150, s2).astype("<i4"), STANDARD_READS),
        ("fixedscaleoffset_order_f", [6, 5, 4], [4, 2, 3], ">f8", "NaN", nc.Blosc("lz4", 5, nc.Blosc.SHUFFLE),
         [nc.FixedScaleOffset(offset=20, scale=100, dtype=">f8", astype=">i4")], "F",
         smooth([6, 5, 4], ">f8", 30.0, 20.0), ["", "1:5, ::2, 3"]),
        ("quantize_f8_as_f4", s2, c2, "<f8", 0, nc.BZ2(1), [nc.Quantize(3, "<f8", astype="<f4")], "C",
         smooth(s2, "<f8"), STANDARD_READS),
        ("quantize_f4_order_f", s2, c2, "<f4", 0, nc.Zlib(1), [nc.Quantize(2, "<f4")], "F", smooth(s2, "<f4"),
         STANDARD_READS),
        ("bitround_f4", s2, c2, "<f4", 0, nc.Zstd(1), [nc.BitRound(8)], "C", smooth(s2, "<f4"), STANDARD_READS),
        ("bitround_f8", s2, c2, "<f8", 0, None, [nc.BitRound(20)], "C", smooth(s2, "<f8"), STANDARD_READS),
        ("astype_f8_as_f4", s2, c2, "<f8", 0, nc.LZ4(), [nc.AsType(encode_dtype="<f4", decode_dtype="<f8")], "C",
         smooth(s2, "<f8"), STANDARD_READS),
        ("astype_i8_as_i2", s2, c2, "<i8", 0, None, [nc.AsType(encode_dtype="<i2", decode_dtype="<i8")], "C",
         rng.integers(-30000, 30000, s2).astype("<i8"), STANDARD_READS),
        ("astype_f4_as_u1", s2, c2, "<f4", 0, None, [nc.AsType(encode_dtype="|u1", decode_dtype="<f4")], "C",
         rng.integers(0, 256, s2).astype("<f4"), STANDARD_READS),
        ("astype_f2_as_f8", s2, c2, "<f2", 0, None, [nc.AsType(encode_dtype="<f8", decode_dtype="<f2")], "C",
         smooth(s2, "<f2", 10.0), STANDARD_READS),
        ("shuffle_f8", s2, c2, "<f8", 0, nc.Zlib(5), [nc.Shuffle(8)], "C", smooth(s2, "<f8"), STANDARD_READS),
        ("shuffle_i2_elementsize_4", s2, [4, 4], "<i2", 0, nc.LZ4(), [nc.Shuffle(4)], "C",
         walk(s2, "<i2"), STANDARD_READS),
        ("packbits_bool", s2, [3, 5], "|b1", False, None, [nc.PackBits()], "C", values(s2, "|b1", rng),
         STANDARD_READS),
        ("packbits_bool_order_f", s2, [4, 4], "|b1", True, nc.Zlib(1), [nc.PackBits()], "F",
         values(s2, "|b1", rng), STANDARD_READS),
        ("chain_delta_shuffle_xz", s2, c2, "<i4", 0, nc.LZMA(), [nc.Delta("<i4"), nc.Shuffle(4)], "C",
         walk(s2, "<i4", 1000), STANDARD_READS),
        ("chain_fixedscaleoffset_delta", s2, c2, "<f8", 0, nc.Zlib(9),
         [nc.FixedScaleOffset(offset=0, scale=100, dtype="<f8", astype="<i4"), nc.Delta("<i4", astype="<i2")], "C",
         smooth(s2, "<f8", 50.0), STANDARD_READS),
        ("chain_astype_quantize_bitround", s2, c2, "<f8", 0, nc.BZ2(9),
         [nc.Quantize(4, "<f8"), nc.AsType(encode_dtype="<f4", decode_dtype="<f8"), nc.BitRound(12)], "C",
         smooth(s2, "<f8"), STANDARD_READS),
        ("lz4", [30, 20], [8, 7], "<i4", 0, nc.LZ4(acceleration=3), None, "C", walk([30, 20], "<i4"),
         STANDARD_READS),
        ("lz4_big_complex", s2, c2, ">c8", 1.5 - 2j, nc.LZ4(), None, "C", values(s2, ">c8", rng), STANDARD_READS),
        ("lzma_xz", [30, 20], [8, 7], "<f8", 0, nc.LZMA(preset=1), None, "C", smooth([30, 20], "<f8"),
         STANDARD_READS),
        ("lzma_alone", [30, 20], [8, 7], "<u2", 0, nc.LZMA(format=lzma.FORMAT_ALONE), None, "C",
         values([30, 20], "<u2", rng), STANDARD_READS),
        ("lzma_raw_delta_lzma2", [30, 20], [8, 7], "<i4", 0, nc.LZMA(format=lzma.FORMAT_RAW, filters=raw), None,
         "C", walk([30, 20], "<i4"), STANDARD_READS),
        ("lzma_xz_check_sha256", s2, c2, "<i8", 0, nc.LZMA(check=lzma.CHECK_SHA256), None, "C",
         walk(s2, "<i8"), STANDARD_READS),
        ("numcodecs_gzip", s2, c2, "<u4", 0, nc.GZip(5), None, "C", values(s2, "<u4", rng), STANDARD_READS),
        ("numcodecs_zstd", s2, c2, "<i2", 0, nc.Zstd(5), None, "C", values(s2, "<i2", rng), STANDARD_READS),
        ("numcodecs_bz2", s2, c2, "<f4", 0, nc.BZ2(9), None, "C", values(s2, "<f4", rng), STANDARD_READS),
        ("numcodecs_blosc_autoshuffle", s2, c2, "|u1", 0, nc.Blosc("zstd", 3, nc.Blosc.AUTOSHUFFLE), None, "C",
         values(s2, "|u1", rng), STANDARD_READS),
        ("numcodecs_blosc_bitshuffle", s2, c2, "<f8", 0, nc.Blosc("zlib", 5, nc.Blosc.BITSHUFFLE), None, "C",
         smooth(s2, "<f8"), STANDARD_READS),
        ("order_f_1d", [50], [8], "<i2", 9, nc.GZip(6), None, "F", walk([50], "<i2"), ["", "3:47:5", "-1"]),
        ("dimension_separator_slash_filters", s2, c2, "<i4", 0, nc.Zlib(1), [nc.Delta("<i4")], "C",
         walk(s2, "<i4"), STANDARD_READS),
    ]


# zarr-python 2.13 builds a complex fill value as re + 1j * im, so [1.0, "NaN"] becomes nan+nanj;
# tensorstore (and the spec's [real, imaginary] pair) keep the real part 1.0: zaro follows tensorstore
ZARR2_DIFFERS = {"dtype_complex64"}


def run_zarr2(out_json, ts_json):
    import zarr
    import numcodecs as nc

    rng = np.random.default_rng(7)
    cases = []
    for name, shape, chunks, dt, fill, compressor, filters, order, data, selections in zarr2_cases(rng):
        path = STORES / f"{name}.zarr"
        shutil.rmtree(path, ignore_errors=True)
        sep = "/" if "slash" in name else "."
        z = zarr.open(str(path), mode="w", shape=shape, chunks=chunks, dtype=dt, fill_value=fill,
                      compressor=compressor, filters=filters, order=order, dimension_separator=sep)
        cut = partial_region(shape, chunks)
        z[cut] = data[cut]
        reads = write_reads(name, lambda sel: z[parse_selection(sel, shape)], selections, shape)
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": v3_name(dt),
                      "shape": shape, "reads": reads, "writer": "zarr-python"})

    hierarchy = hierarchies(zarr, nc, rng, cases)

    # zarr-python reads every tensorstore store the same way
    checked = 0
    for c in json.loads(pathlib.Path(ts_json).read_text()):
        if c["fill_null"]:
            continue  # zarr-python 2 leaves missing chunks uninitialized when fill_value is null
        if c["name"] in ZARR2_DIFFERS:
            continue
        z = zarr.open(str(HERE / c["store"]), mode="r")
        for r in c["reads"]:
            got = np.asarray(z[parse_selection(r["slice"], c["shape"])])
            want = (HERE / r["expected"]).read_bytes()
            assert to_le_bytes(got) == want, f"zarr-python disagrees with tensorstore on {c['name']}[{r['slice']}]"
        checked += 1
    print(f"zarr-python agrees with tensorstore on {checked} stores")
    pathlib.Path(out_json).write_text(json.dumps({"cases": cases, "hierarchy": hierarchy}))


def hierarchies(zarr, nc, rng, cases):
    """hierarchy.zarr (plain), consolidated.zarr (with .zmetadata), consolidated_only.zarr (only .zmetadata)."""
    arrays = [("top", [6, 5], [4, 4], "<i4", ["y", "x"], {"units": "m"}, "/"),
              ("obs/temp", [12], [5], "<f4", ["time"], {"units": "degC", "long_name": "temperature"}, "."),
              ("obs/deep/sites/values", [4, 3, 2], [2, 2, 2], "<u2", ["site", "k", "j"], {}, "."),
              ("model/run1/field", [7, 7], [3, 3], ">f8", None, {"run": 1}, ".")]
    nodes = [{"path": "/", "kind": "group", "implicit": False},
             {"path": "/obs", "kind": "group", "implicit": False},
             {"path": "/obs/deep", "kind": "group", "implicit": False},
             {"path": "/obs/deep/sites", "kind": "group", "implicit": False},
             {"path": "/model", "kind": "group", "implicit": False},
             {"path": "/model/run1", "kind": "group", "implicit": False}]
    attributes = {"/": {"title": "nested v2", "version": 2}, "/obs": {"kind": "observations"}}
    data = {p: values(shape, dt, rng) for p, shape, chunks, dt, dims, attrs, sep in arrays}
    for store_name in ["hierarchy", "consolidated"]:
        path = STORES / f"{store_name}.zarr"
        shutil.rmtree(path, ignore_errors=True)
        root = zarr.open_group(str(path), mode="w")
        root.attrs.update(attributes["/"])
        root.create_group("obs").attrs.update(attributes["/obs"])
        for p, shape, chunks, dt, dims, attrs, sep in arrays:
            a = root.create_dataset(p, shape=shape, chunks=chunks, dtype=dt, fill_value=0, compressor=nc.Zlib(1),
                                    dimension_separator=sep)
            a[...] = data[p]
            a.attrs.update(attrs)
            if dims:
                a.attrs["_ARRAY_DIMENSIONS"] = dims
        if store_name == "consolidated":
            zarr.consolidate_metadata(str(path))
    # the same hierarchy with nothing but .zmetadata (and the chunks): only consolidated metadata can open it
    only = STORES / "consolidated_only.zarr"
    shutil.rmtree(only, ignore_errors=True)
    shutil.copytree(STORES / "consolidated.zarr", only)
    for f in list(only.rglob(".z*")):
        if f.name != ".zmetadata":
            f.unlink()
    for store_name in ["hierarchy", "consolidated", "consolidated_only"]:
        z = zarr.open_consolidated(str(STORES / f"{store_name}.zarr"), mode="r") if store_name != "hierarchy" \
            else zarr.open_group(str(STORES / f"{store_name}.zarr"), mode="r")
        for p, shape, chunks, dt, dims, attrs, sep in arrays:
            a = z[p]
            name = f"{store_name}_{p.replace('/', '_')}"
            reads = write_reads(name, lambda sel: a[parse_selection(sel, shape)], ["", "1:3"], shape)
            assert to_le_bytes(a[...]) == to_le_bytes(data[p])
            case = {"name": name, "store": f"stores/{store_name}.zarr", "path": p, "data_type": v3_name(dt),
                    "shape": shape, "reads": reads, "writer": "zarr-python"}
            if dims:
                case["dimension_names"] = dims
            cases.append(case)
    for p, shape, chunks, dt, dims, attrs, sep in arrays:
        nodes.append({"path": "/" + p, "kind": "array", "implicit": False})
        a = dict(attrs)
        if dims:
            a["_ARRAY_DIMENSIONS"] = dims
        attributes["/" + p] = a
    return {"store": "stores/hierarchy.zarr", "nodes": nodes, "attributes": attributes,
            "consolidated": ["stores/consolidated.zarr", "stores/consolidated_only.zarr"]}


# ---------------------------------------------------------------------------------------------

def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--zarr2":
        run_zarr2(sys.argv[2], sys.argv[3])
        return
    shutil.rmtree(STORES, ignore_errors=True)
    shutil.rmtree(EXPECTED, ignore_errors=True)
    STORES.mkdir(parents=True)
    EXPECTED.mkdir(parents=True)
    rng = np.random.default_rng(42)
    ts_part = run_tensorstore(rng)
    ts_json = HERE / "ts_cases.tmp.json"
    zarr2_json = HERE / "zarr2_cases.tmp.json"
    ts_json.write_text(json.dumps(ts_part))
    try:
        subprocess.run([ZARR2_PYTHON, str(pathlib.Path(__file__).resolve()), "--zarr2", str(zarr2_json), str(ts_json)],
                       check=True)
        zarr2 = json.loads(zarr2_json.read_text())
    finally:
        ts_json.unlink(missing_ok=True)
        zarr2_json.unlink(missing_ok=True)
    check_with_tensorstore(zarr2["cases"])
    cases = ts_part + zarr2["cases"]
    for c in cases:
        c.pop("fill_null", None)
    doc = {"cases": cases, "hierarchy": zarr2["hierarchy"]}
    (HERE / "cases.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(cases)} cases, {sum(len(c['reads']) for c in cases)} reads")


if __name__ == "__main__":
    main()
