"""Zarr v2 arrays of numpy's time units and fixed-length bytes, written by zarr-python 2 (Debian's
python3-zarr 2.13: `apt-get install python3-zarr`), with expected values from numpy.

datetime64 in units D, W, M, Y, h, [10s] (and a big-endian D); timedelta64 in m, D, W, Y; |S<n>
(numpy drops trailing NULs) and |V<n>. Every array holds NaT (or NUL-padded) values and has a
missing chunk read as its fill value.

The expected values are what zaro's Arrow mapping holds (README, "Arrow shapes"), computed by
numpy from what zarr-python 2 reads back: datetime D/W/M/Y as days since 1970-01-01
(`.astype("M8[D]")`, so months and years by numpy's calendar), h/m/[10s] as seconds, timedelta
W/D/h/m as seconds, M/Y as months; NaT as null; bytes as hex.

Run with the system python that has zarr 2: /usr/bin/python3 testdata/numpytypes/generate_v2_types.py
Writes stores_v2/ and cases_v2.json (see generate_v3_types.py for the v3 half).
"""
import json
import pathlib
import shutil

import numcodecs
import numpy as np
import zarr

HERE = pathlib.Path(__file__).resolve().parent
assert zarr.__version__.startswith("2."), zarr.__version__

# (name, dtype, arrow, expected-as: numpy dtype whose int64 values are the Arrow values)
TIMES = [
    ("datetime_D", "<M8[D]", "date32", "M8[D]"),
    ("datetime_D_big", ">M8[D]", "date32", "M8[D]"),
    ("datetime_W", "<M8[W]", "date32", "M8[D]"),
    ("datetime_M", "<M8[M]", "date32", "M8[D]"),
    ("datetime_Y", "<M8[Y]", "date32", "M8[D]"),
    ("datetime_h", "<M8[h]", "timestamp[s]", "M8[s]"),
    ("datetime_10s", "<M8[10s]", "timestamp[s]", "M8[s]"),
    ("datetime_ns", "<M8[ns]", "timestamp[ns]", "M8[ns]"),
    ("timedelta_m", "<m8[m]", "duration[s]", "m8[s]"),
    ("timedelta_D", "<m8[D]", "duration[s]", "m8[s]"),
    ("timedelta_W", "<m8[W]", "duration[s]", "m8[s]"),
    ("timedelta_Y", "<m8[Y]", "month_interval", "m8[M]"),
]


def arrow_values(a, as_dtype):
    """numpy's own conversion to the Arrow unit, NaT as None, C order."""
    flat = np.ravel(a)
    nat = np.isnat(flat)
    ints = flat.astype(as_dtype).astype("<i8")
    return [None if n else int(v) for v, n in zip(ints, nat)]


def main():
    shutil.rmtree(HERE / "stores_v2", ignore_errors=True)
    rng = np.random.default_rng(21)
    shape, chunks = (7, 9), (3, 4)
    cases = []
    for name, dtype, arrow, as_dtype in TIMES:
        unit = np.datetime_data(np.dtype(dtype))
        span = {"Y": 400, "M": 4000, "W": 20000, "D": 100000}.get(unit[0], 10**9)
        if dtype[1] == "M":
            data = (np.datetime64("1900-01-01", unit[0]) + rng.integers(-span, span, shape)).astype(dtype)
        else:
            data = rng.integers(-span, span, shape).astype(f"m8[{unit[0]}]").astype(dtype)
        data.flat[[3, 17, 40]] = np.array("NaT", dtype=dtype)
        fill = data.flat[5] if name != "datetime_W" else np.array("NaT", dtype=dtype)
        z = zarr.open_array(str(HERE / "stores_v2" / f"{name}.zarr"), mode="w", shape=shape,
                            chunks=chunks, dtype=dtype, compressor=numcodecs.Zlib(level=1),
                            fill_value=fill)
        z[:6, :8] = data[:6, :8]        # the last chunk row and column stay missing: fill values
        full = z[...]
        cases.append({"name": name, "store": f"stores_v2/{name}.zarr", "format": 2,
                      "numpy": str(full.dtype), "arrow": arrow,
                      "shape": list(shape), "values": arrow_values(full, as_dtype)})
    # |S6: values with trailing NULs (numpy drops them), embedded NULs (kept), a base64 fill value
    words = [b"", b"a", b"ab\x00c", b"zarr!!", b"\x00\x00x", b"xyz"]
    data = np.array([words[i % len(words)] for i in range(63)], dtype="|S6").reshape(shape)
    z = zarr.open_array(str(HERE / "stores_v2" / "bytes_S6.zarr"), mode="w", shape=shape,
                        chunks=chunks, dtype="|S6", compressor=numcodecs.Zlib(level=1), fill_value=b"fil")
    z[:6, :8] = data[:6, :8]
    full = z[...]
    cases.append({"name": "bytes_S6", "store": "stores_v2/bytes_S6.zarr", "format": 2,
                  "numpy": "|S6", "arrow": "binary", "shape": list(shape),
                  "values": [bytes(v).hex() for v in np.ravel(full)]})
    # |V4: raw bytes, kept as they are (FixedSizeBinary(4))
    data = rng.integers(0, 256, (7, 9, 4), dtype="u1").view("|V4").reshape(shape)
    z = zarr.open_array(str(HERE / "stores_v2" / "void_V4.zarr"), mode="w", shape=shape,
                        chunks=chunks, dtype="|V4", compressor=None, fill_value=None)
    z[...] = data                       # without a fill value zarr-python 2 reads missing chunks as np.empty
    full = z[...]
    cases.append({"name": "void_V4", "store": "stores_v2/void_V4.zarr", "format": 2,
                  "numpy": "|V4", "arrow": "fixed_size_binary[4]", "shape": list(shape),
                  "values": [full.flat[i].tobytes().hex() for i in range(full.size)]})
    # a dataset as xarray lays it out in zarr-python 2: a datetime64[D] coordinate labels the rows
    # of the table layout (date32, numpy's values)
    g = zarr.open_group(str(HERE / "stores_v2" / "coords.zarr"), mode="w")
    days = np.datetime64("2020-02-27") + np.arange(6).astype("m8[D]") * 3
    t = g.create_dataset("time", data=days, chunks=(4,), compressor=None)
    t.attrs["_ARRAY_DIMENSIONS"] = ["time"]
    v = g.create_dataset("v", data=np.arange(6, dtype="<i2") * 10, chunks=(4,), compressor=None,
                         fill_value=None)    # no fill value: xarray would mask the values equal to it
    v.attrs["_ARRAY_DIMENSIONS"] = ["time"]
    coords = {"store": "stores_v2/coords.zarr", "path": "v", "dimension": "time",
              "dimension_values": [int(x) for x in days.astype("M8[D]").astype("<i8")],
              "values": [int(x) for x in v[...]]}
    (HERE / "cases_v2.json").write_text(json.dumps({
        "writer": f"zarr-python {zarr.__version__}, numpy {np.__version__}, numcodecs {numcodecs.__version__}",
        "cases": cases, "coordinates": coords}, indent=1) + "\n")


if __name__ == "__main__":
    main()
