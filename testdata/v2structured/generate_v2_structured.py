"""Writes Zarr v2 arrays of numpy structured dtypes with zarr-python 2 (Debian's python3-zarr),
plus numpy's expected values: nested structs, subarray fields, text/bytes/time/bool/complex
fields, aligned dtypes (numpy writes their padding as unnamed "|V<n>" entries), big-endian
fields, order F, base64 fill values, chunks never written.

Run from the repository root with the system Python that has python3-zarr (zarr 2.x):
    /usr/bin/python3 testdata/v2structured/generate_v2_structured.py
Rewrites testdata/v2structured/{stores,expected,cases.json}. Expected files hold numpy's
values as C-order bytes of the little-endian form of the array's own dtype (same offsets
and item size, padding zero); the case's "numpy_dtype" is numpy's descr of that dtype and
"fields" its named fields (zarr-python 2 reads padding back as extra fields f<i>).
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


def little(dtype):
    """The dtype with every field little endian, offsets and item size kept."""
    if dtype.fields is None:
        return dtype.newbyteorder("<") if dtype.byteorder == ">" else dtype
    if dtype.subdtype is not None:
        return np.dtype((little(dtype.subdtype[0]), dtype.subdtype[1]))
    names = list(dtype.names)
    return np.dtype({"names": names, "formats": [little(dtype.fields[n][0]) for n in names],
                     "offsets": [dtype.fields[n][1] for n in names], "itemsize": dtype.itemsize})


def add(cases, name, dtype, data, chunks, fill, selections, **kwargs):
    path = HERE / "stores" / f"{name}.zarr"
    z = zarr.create(store=zarr.DirectoryStore(str(path)), shape=data.shape, chunks=chunks, dtype=dtype,
                    fill_value=fill, write_empty_chunks=False, **kwargs)
    # zarr-python 2 reads padding entries back as fields named f<i>: copy the named fields over
    values = np.zeros(data.shape, dtype=z.dtype)
    for n in data.dtype.names:
        values[n] = data[n]
    z[...] = values
    z.attrs["written_by"] = "zarr-python " + zarr.__version__
    back = zarr.open_array(str(path), mode="r")[...]
    assert back.tobytes() == values.tobytes(), name
    le = little(z.dtype)
    reads = []
    for i, sel in enumerate(selections):
        got = np.ascontiguousarray(back[to_index(sel)]).astype(le)
        exp = f"expected/{name}.{i}.bin"
        (HERE / exp).write_bytes(got.tobytes())
        reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
    cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": "struct",
                  "numpy_dtype": json.loads(json.dumps(le.descr)),
                  "fields": list(data.dtype.names), "shape": list(data.shape), "reads": reads})


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    rng = np.random.default_rng(23)
    cases = []

    # two scalar fields, 2-D, blosc (zarr's default), a fill value, chunks left unwritten
    basic = np.dtype([("a", "<i4"), ("b", "<f8")])
    data = np.zeros((9, 7), dtype=basic)
    data["a"] = rng.integers(-10**6, 10**6, data.shape)
    data["b"] = rng.normal(0, 10, data.shape)
    fill = np.array((7, 2.5), dtype=basic)
    data[4:, 3:] = fill
    add(cases, "basic", basic, data, (4, 3), fill.tobytes(), ["", "1:8:2, 2:7", "5, :"])

    # every field shape zarr-python 2 writes: subarrays (1-D, 2-D), a nested struct, bytes, text,
    # datetime, bool, complex; zlib
    rich = np.dtype([("a", "<i4"), ("b", "<f8", (2,)), ("p", [("x", "<f4"), ("y", "u1")]), ("s", "S3"),
                     ("q", "<i2", (2, 3)), ("u", "<U3"), ("t", "<M8[s]"), ("ok", "?"), ("c", "<c8"),
                     ("ps", [("m", "<u2"), ("n", "i1")], (2,))])
    data = np.zeros(13, dtype=rich)
    data["a"] = rng.integers(-100, 100, 13)
    data["b"] = rng.normal(0, 1, (13, 2))
    data["p"]["x"] = rng.normal(0, 1, 13)
    data["p"]["y"] = rng.integers(0, 256, 13)
    data["s"] = [bytes([65 + i % 26]) * (i % 4) for i in range(13)]
    data["q"] = rng.integers(-30000, 30000, (13, 2, 3))
    data["u"] = [["", "a", "ü", "日本語", "xy"][i % 5] for i in range(13)]
    data["t"] = np.datetime64("2001-02-03T04:05:06", "s") + rng.integers(0, 10**8, 13).astype("m8[s]")
    data["ok"] = rng.integers(0, 2, 13).astype(bool)
    data["c"] = rng.normal(0, 1, 13) + 1j * rng.normal(0, 1, 13)
    data["ps"]["m"] = rng.integers(0, 65536, (13, 2))
    data["ps"]["n"] = rng.integers(-128, 128, (13, 2))
    fill = np.zeros((), dtype=rich)
    fill["a"], fill["b"], fill["s"], fill["u"], fill["t"] = -1, (1.5, -0.5), b"fil", "ab", np.datetime64("NaT")
    data[9:] = fill
    add(cases, "rich", rich, data, (4,), fill.tobytes(), ["", "2:12:3"], compressor=numcodecs.Zlib(level=3))

    # align=True: numpy pads fields to their alignment; zarr-python writes the padding as ["", "|V7"]
    aligned = np.dtype([("a", "u1"), ("b", "<f8"), ("c", "<i2")], align=True)
    data = np.zeros((5, 6), dtype=aligned)
    data["a"] = rng.integers(0, 256, data.shape)
    data["b"] = rng.normal(0, 1, data.shape)
    data["c"] = rng.integers(-1000, 1000, data.shape)
    add(cases, "aligned_order_f", aligned, data, (3, 4), 0, ["", "1:5, 1:6:2"], order="F")

    # big-endian fields; the base64 fill value holds big-endian bytes; no compressor
    big = np.dtype([("a", ">i4"), ("b", ">f8"), ("c", "u1")])
    data = np.zeros((10,), dtype=big)
    data["a"] = rng.integers(-10**6, 10**6, 10)
    data["b"] = rng.normal(0, 10, 10)
    data["c"] = rng.integers(0, 256, 10)
    fill = np.array((-5, 0.125, 9), dtype=big)
    data[6:] = fill
    add(cases, "big_endian", big, data, (3,), fill.tobytes(), ["", "1:9:2"], compressor=None)

    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
