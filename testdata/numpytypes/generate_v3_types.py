"""Zarr v3 arrays whose zarr.json is written exactly as zarr-python 3.0.x and 3.1 write it, with
chunks encoded by numcodecs and numpy, expected values from numpy.

- zarr-python 3.0.x with numcodecs 0.14 to 0.15.0 left "id" inside every numcodecs.* codec
  configuration ({"name": "numcodecs.zlib", "configuration": {"id": "zlib", "level": 1}});
- zarr-python 3.1 writes numpy S<n> as null_terminated_bytes and V<n> as raw_bytes (fill values as
  base64), and datetime64/timedelta64 as numpy.datetime64/numpy.timedelta64 with "unit" and
  "scale_factor" (fill values as integers, NaT as the smallest int64).

zarr-python 3 itself is not needed: the documents follow its to_dict() output key for key
(src/zarr/core/metadata/v3.py, src/zarr/core/dtype/npy/{bytes,time}.py), the chunks are each
codec's own encoding (numcodecs Delta, Shuffle, Zlib, Zstd; numpy's tobytes for the bytes codec).
Expected values are numpy's, converted to zaro's Arrow mapping as generate_v2_types.py does.

Run: .venv/bin/python testdata/numpytypes/generate_v3_types.py   (writes stores_v3/, cases_v3.json)
"""
import base64
import json
import pathlib
import shutil

import numcodecs
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SHAPE, CHUNKS = (7, 9), (3, 4)
NAT = np.iinfo(np.int64).min


def arrow_values(a, as_dtype):
    flat = np.ravel(a)
    nat = np.isnat(flat)
    ints = flat.astype(as_dtype).astype("<i8")
    return [None if n else int(v) for v, n in zip(ints, nat)]


def write_array(name, data_type, fill_json, codecs, data, fill, encode, missing=((2, 2),)):
    """zarr.json as zarr-python 3 writes it, then every chunk but `missing`, padded with `fill`."""
    root = HERE / "stores_v3" / f"{name}.zarr"
    root.mkdir(parents=True)
    meta = {
        "shape": list(SHAPE),
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(CHUNKS)}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill_json,
        "codecs": codecs,
        "attributes": {},
        "zarr_format": 3,
        "node_type": "array",
        "storage_transformers": [],
    }
    (root / "zarr.json").write_text(json.dumps(meta, indent=2))
    out = np.full(SHAPE, fill, dtype=data.dtype)
    for ci in range(-(-SHAPE[0] // CHUNKS[0])):
        for cj in range(-(-SHAPE[1] // CHUNKS[1])):
            if (ci, cj) in missing:
                continue
            chunk = np.full(CHUNKS, fill, dtype=data.dtype)
            part = data[ci * 3:ci * 3 + 3, cj * 4:cj * 4 + 4]
            chunk[:part.shape[0], :part.shape[1]] = part
            out[ci * 3:ci * 3 + 3, cj * 4:cj * 4 + 4] = part
            (root / "c" / str(ci)).mkdir(parents=True, exist_ok=True)
            (root / "c" / str(ci) / str(cj)).write_bytes(encode(chunk))
    return out


def main():
    shutil.rmtree(HERE / "stores_v3", ignore_errors=True)
    rng = np.random.default_rng(321)
    cases = []

    # zarr-python 3.0.x + numcodecs 0.14: "id" inside each numcodecs.* configuration
    data = rng.integers(-1000, 1000, SHAPE).astype("<i4")
    delta, shuffle, zlib = numcodecs.Delta(dtype="<i4"), numcodecs.Shuffle(elementsize=4), numcodecs.Zlib(level=1)
    out = write_array(
        "zp30_numcodecs_id", "int32", 7,
        [{"name": "numcodecs.delta", "configuration": {"id": "delta", "dtype": "<i4"}},
         {"name": "bytes", "configuration": {"endian": "little"}},
         {"name": "numcodecs.shuffle", "configuration": {"id": "shuffle", "elementsize": 4}},
         {"name": "numcodecs.zlib", "configuration": {"id": "zlib", "level": 1}}],
        data, 7,
        lambda c: zlib.encode(shuffle.encode(np.asarray(delta.encode(c.ravel())).astype("<i4").tobytes())))
    cases.append({"name": "zp30_numcodecs_id", "store": "stores_v3/zp30_numcodecs_id.zarr", "format": 3,
                  "numpy": "int32", "arrow": "int32", "shape": list(SHAPE),
                  "values": [int(v) for v in out.ravel()]})

    zstd = numcodecs.Zstd(level=0)
    zstd_json = {"name": "zstd", "configuration": {"level": 0, "checksum": False}}

    # zarr-python 3.1: null_terminated_bytes (numpy S6), fill value base64 of numpy's bytes_
    words = [b"", b"a", b"ab\x00c", b"zarr!!", b"\x00\x00x", b"xyz"]
    data = np.array([words[i % len(words)] for i in range(63)], dtype="|S6").reshape(SHAPE)
    fill = np.bytes_(b"fil")
    out = write_array(
        "zp31_null_terminated_bytes", {"name": "null_terminated_bytes", "configuration": {"length_bytes": 6}},
        base64.standard_b64encode(fill).decode("ascii"),
        [{"name": "bytes"}, zstd_json], data, fill, lambda c: zstd.encode(c.tobytes()))
    cases.append({"name": "zp31_null_terminated_bytes", "store": "stores_v3/zp31_null_terminated_bytes.zarr",
                  "format": 3, "numpy": "|S6", "arrow": "binary", "shape": list(SHAPE),
                  "values": [bytes(v).hex() for v in out.ravel()]})

    # zarr-python 3.1: raw_bytes (numpy V4), fill value base64 of the 4 bytes
    data = rng.integers(0, 256, SHAPE + (4,), dtype="u1").view("|V4").reshape(SHAPE)
    fill = np.frombuffer(b"\x01\x02\x03\x04", dtype="|V4")[0]
    out = write_array(
        "zp31_raw_bytes", {"name": "raw_bytes", "configuration": {"length_bytes": 4}},
        base64.standard_b64encode(fill.tobytes()).decode("ascii"),
        [{"name": "bytes"}, zstd_json], data, fill, lambda c: zstd.encode(c.tobytes()))
    cases.append({"name": "zp31_raw_bytes", "store": "stores_v3/zp31_raw_bytes.zarr", "format": 3,
                  "numpy": "|V4", "arrow": "fixed_size_binary[4]", "shape": list(SHAPE),
                  "values": [out.flat[i].tobytes().hex() for i in range(out.size)]})

    # zarr-python 3.1: numpy.datetime64 / numpy.timedelta64 with unit and scale_factor
    times = [
        ("zp31_datetime_D", "numpy.datetime64", "D", 1, "date32", "M8[D]", "NaT"),
        ("zp31_datetime_M", "numpy.datetime64", "M", 1, "date32", "M8[D]", 600),
        ("zp31_datetime_10s", "numpy.datetime64", "s", 10, "timestamp[s]", "M8[s]", 12345),
        ("zp31_datetime_ms", "numpy.datetime64", "ms", 1, "timestamp[ms]", "M8[ms]", "NaT"),
        ("zp31_timedelta_h", "numpy.timedelta64", "h", 1, "duration[s]", "m8[s]", -5),
        ("zp31_timedelta_M", "numpy.timedelta64", "M", 1, "month_interval", "m8[M]", "NaT"),
    ]
    for name, dt_name, unit, scale, arrow, as_dtype, fill_value in times:
        npunit = f"{scale}{unit}" if scale != 1 else unit
        kind = "M8" if dt_name == "numpy.datetime64" else "m8"
        dtype = np.dtype(f"<{kind}[{npunit}]")
        span = {"M": 6000, "D": 200000}.get(unit, 10**9)
        data = rng.integers(-span, span, SHAPE).astype("<i8").view(dtype)
        data.flat[[0, 11, 50]] = np.array("NaT", dtype=dtype)
        fill = np.array(fill_value, dtype=dtype) if fill_value == "NaT" else np.array(fill_value, "<i8").view(dtype)
        fill_json = int(fill.view("<i8"))   # zarr-python 3.1: datetimelike_to_int (NaT: the smallest int64)
        out = write_array(
            name, {"name": dt_name, "configuration": {"unit": unit, "scale_factor": scale}}, fill_json,
            [{"name": "bytes", "configuration": {"endian": "little"}}, zstd_json],
            data, fill, lambda c: zstd.encode(c.view("<i8").tobytes()))
        cases.append({"name": name, "store": f"stores_v3/{name}.zarr", "format": 3, "numpy": str(dtype),
                      "arrow": arrow, "shape": list(SHAPE), "values": arrow_values(out, as_dtype)})

    (HERE / "cases_v3.json").write_text(json.dumps({
        "writer": f"zarr.json as zarr-python 3.0.x/3.1 write it; chunks numcodecs {numcodecs.__version__},"
                  f" numpy {np.__version__}",
        "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
