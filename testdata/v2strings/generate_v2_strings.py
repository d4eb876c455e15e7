"""Zarr v2 arrays of strings (vlen-utf8, json2, msgpack2, categorize), bytes, fixed-width bytes and datetimes written by zarr-python 2
(Debian's python3-zarr: `apt-get install python3-zarr`), with expected values from numpy: JSON
lists for object arrays (strings; bytes as latin-1 text), raw little-endian bytes otherwise.

Run with the system python that has zarr 2: /usr/bin/python3 testdata/v2strings/generate_v2_strings.py
"""
import json
import pathlib
import shutil
import sys

import numcodecs
import numpy as np
import zarr

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import to_index  # noqa: E402  (testdata/selection.py)
assert zarr.__version__.startswith("2."), zarr.__version__


def json_reads(name, full, text=str):
    """The three reads of every 7 x 9 array, expected values as a JSON list of text."""
    reads = []
    for i, sel in enumerate(["", "1:7:2, 2:9", "4, :"]):
        got = full[to_index(sel)]
        exp = f"expected/{name}.{i}.json"
        (HERE / exp).write_text(json.dumps([text(v) for v in np.ravel(got)], ensure_ascii=False))
        reads.append({"slice": sel, "shape": list(np.shape(got)), "expected": exp})
    return reads


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    words = ["", "a", "zarr", "ünïcödé", "日本語", "x" * 200, "tab\tnl\n", "🙂"]
    cases = []
    specs = [
        ("strings_zlib_C", "C", numcodecs.VLenUTF8(), numcodecs.Zlib(level=5), "string", ""),
        ("strings_blosc_F", "F", numcodecs.VLenUTF8(), numcodecs.Blosc(cname="lz4", clevel=5), "string", ""),
        ("strings_raw", "C", numcodecs.VLenUTF8(), None, "string", "fill"),
        ("bytes_zstd", "C", numcodecs.VLenBytes(), numcodecs.Zstd(level=3), "bytes", None),
    ]
    for name, order, object_codec, compressor, kind, fill in specs:
        shape, chunks = (7, 9), (3, 4)
        data = np.empty(shape, dtype=object)
        for i, j in np.ndindex(*shape):
            w = words[(i * 9 + j * 5) % len(words)] + str(i * 10 + j)
            data[i, j] = w if kind == "string" else w.encode("utf-8")
        z = zarr.open_array(str(HERE / "stores" / f"{name}.zarr"), mode="w", shape=shape, chunks=chunks,
                            dtype=object, object_codec=object_codec, compressor=compressor, order=order,
                            fill_value=fill)
        if fill is None:
            z[...] = data               # null fill: zarr-python would read missing elements as None
        else:
            z[:6, :8] = data[:6, :8]    # the last chunk row/column stays missing (fill value)
        reads = json_reads(name, z[...], (lambda v: v) if kind == "string" else (lambda v: v.decode("latin-1")))
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": kind,
                      "shape": list(shape), "reads": reads})
    # fixed-width unicode (numpy U: UTF-32), little and big endian
    for name, dtype in [("unicode_U6", "<U6"), ("unicode_U4_big", ">U4")]:
        shape, chunks = (7, 9), (3, 4)
        n = int(dtype[2:])
        data = np.array([(words[(i * 5) % len(words)] + str(i))[:n] for i in range(63)], dtype=dtype).reshape(shape)
        z = zarr.open_array(str(HERE / "stores" / f"{name}.zarr"), mode="w", shape=shape, chunks=chunks,
                            dtype=dtype, compressor=numcodecs.Zstd(level=1), fill_value="zz")
        z[:6, :8] = data[:6, :8]
        reads = json_reads(name, z[...])
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": "fixed_length_utf32",
                      "shape": list(shape), "reads": reads})

    # categorize: text stored as integer codes (0 = none of the labels, read back as "")
    labels = ["female", "male", "ünïcödé", "日本語"]
    pool = labels + ["unexpected", ""]
    cat_specs = [
        ("categorize_object_zlib", object, "u1", numcodecs.Zlib(level=1), "C", None),
        ("categorize_U8_F_blosc", "<U8", "<u2", numcodecs.Blosc(cname="lz4", clevel=5), "F", "zz"),
        ("categorize_U8_big_raw", ">U8", ">u2", None, "C", "zz"),
    ]
    for name, dtype, astype, compressor, order, fill in cat_specs:
        shape, chunks = (7, 9), (3, 4)
        data = np.array([pool[(i * 7 + i // 5) % len(pool)] for i in range(63)], dtype=dtype).reshape(shape)
        categorize = numcodecs.Categorize(labels=labels, dtype=dtype, astype=astype)
        z = zarr.open_array(str(HERE / "stores" / f"{name}.zarr"), mode="w", shape=shape, chunks=chunks,
                            dtype=dtype, filters=[categorize], compressor=compressor, order=order,
                            fill_value=fill)
        if fill is None:
            z[...] = data               # object arrays: missing elements would read as the number 0
        else:
            z[:6, :8] = data[:6, :8]    # the last chunk row/column stays missing (fill value)
        reads = json_reads(name, z[...])
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "",
                      "data_type": "string" if dtype is object else "fixed_length_utf32",
                      "shape": list(shape), "reads": reads})

    # fixed-width bytes and datetimes (expected as raw little-endian bytes of numpy's values)
    rng = np.random.default_rng(5)
    fixed = [
        ("fixed_bytes_S5", "|S5", b"ab", "null_terminated_bytes", None),
        ("datetime64_ns", "<M8[ns]", np.datetime64("NaT"), "numpy.datetime64", "ns"),
        ("timedelta64_s_big", ">m8[s]", np.timedelta64(-1, "s"), "numpy.timedelta64", "s"),
    ]
    for name, dtype, fill, data_type, unit in fixed:
        shape, chunks = (7, 9), (3, 4)
        if dtype.startswith("|S"):
            data = np.array([("w%d" % v).encode()[:5] for v in rng.integers(0, 10**6, 63)], dtype=dtype).reshape(shape)
        else:
            base = np.datetime64("2020-01-01", unit) if "M8" in dtype else np.timedelta64(0, unit)
            data = (base + rng.integers(0, 10**9, shape).astype(f"m8[{unit}]")).astype(dtype)
        z = zarr.open_array(str(HERE / "stores" / f"{name}.zarr"), mode="w", shape=shape, chunks=chunks,
                            dtype=dtype, compressor=numcodecs.Zlib(level=3), fill_value=fill)
        z[:6, :8] = data[:6, :8]
        full = z[...]
        reads = []
        for i, sel in enumerate(["", "1:7:2, 2:9", "4, :"]):
            got = np.ascontiguousarray(full[to_index(sel)])
            exp = f"expected/{name}.{i}.bin"
            if got.dtype.kind in "Mm":
                got = got.astype(got.dtype.newbyteorder("<"))
            (HERE / exp).write_bytes(got.tobytes())
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        case = {"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": data_type,
                "shape": list(shape), "reads": reads}
        if unit:
            case["unit"] = unit
        cases.append(case)
    # json2, msgpack2: object arrays of text through numcodecs' JSON and MsgPack object codecs (C and
    # F order, missing chunks)
    for name, order, compressor, object_codec in [
            ("json2_strings_zstd", "C", numcodecs.Zstd(level=1), numcodecs.JSON()),
            ("json2_strings_F", "F", None, numcodecs.JSON()),
            ("msgpack2_strings_zlib", "C", numcodecs.Zlib(level=1), numcodecs.MsgPack()),
            ("msgpack2_strings_F", "F", None, numcodecs.MsgPack())]:
        shape, chunks = (7, 9), (3, 4)
        data = np.empty(shape, dtype=object)
        for i, j in np.ndindex(*shape):
            data[i, j] = words[(i * 5 + j * 3) % len(words)] + str(i * 9 + j)
        z = zarr.open_array(str(HERE / "stores" / f"{name}.zarr"), mode="w", shape=shape, chunks=chunks,
                            dtype=object, object_codec=object_codec, compressor=compressor, order=order,
                            fill_value="")
        z[:6, :8] = data[:6, :8]    # the last chunk row/column stays missing (fill value)
        reads = json_reads(name, z[...])
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": "string",
                      "shape": list(shape), "reads": reads})
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
