"""Zarr v2 arrays with numcodecs checksums (crc32, adler32) and base64 as filters and as
compressors, written by zarr-python 2 (Debian's python3-zarr: `apt-get install python3-zarr`),
with expected values read back by zarr-python as raw little-endian bytes.

Run with the system python that has zarr 2: /usr/bin/python3 testdata/v2checksums/generate_v2_checksums.py
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


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    rng = np.random.default_rng(11)
    cases = []
    # name, dtype, filters, compressor, order, fill
    specs = [
        ("crc32_filter_zlib", "<i4", [numcodecs.CRC32()], numcodecs.Zlib(level=4), "C", 7),
        ("adler32_filter_raw", "<f8", [numcodecs.Adler32()], None, "C", float("nan")),
        ("crc32_compressor", ">u2", None, numcodecs.CRC32(), "C", 3),
        ("adler32_compressor_F", "<i8", None, numcodecs.Adler32(), "F", -1),
        ("delta_crc32_blosc", "<i2", [numcodecs.Delta(dtype="<i2"), numcodecs.CRC32()],
         numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.SHUFFLE), "C", 0),
        ("adler32_crc32_zstd", "<f4", [numcodecs.Adler32(), numcodecs.CRC32()], numcodecs.Zstd(level=1), "C", 0.5),
        ("crc32_base64", "<u4", [numcodecs.CRC32()], numcodecs.Base64(), "C", 0),
        ("base64_filter_lz4", "|u1", [numcodecs.Base64()], numcodecs.LZ4(), "C", 5),
    ]
    for name, dtype, filters, compressor, order, fill in specs:
        shape, chunks = (7, 9), (3, 4)
        kind = np.dtype(dtype).kind
        if kind == "f":
            data = rng.normal(0, 100, shape).astype(dtype)
        else:
            info = np.iinfo(dtype)
            data = rng.integers(max(info.min, -30000), min(info.max, 60000), shape, endpoint=True).astype(dtype)
        z = zarr.open_array(str(HERE / "stores" / f"{name}.zarr"), mode="w", shape=shape, chunks=chunks,
                            dtype=dtype, filters=filters, compressor=compressor, order=order, fill_value=fill)
        z[:6, :8] = data[:6, :8]    # the last chunk row/column stays missing (fill value)
        full = z[...]
        reads = []
        for i, sel in enumerate(["", "1:7:2, 2:9", "4, :"]):
            got = np.ascontiguousarray(full[to_index(sel)])
            got = got.astype(got.dtype.newbyteorder("<"))
            exp = f"expected/{name}.{i}.bin"
            (HERE / exp).write_bytes(got.tobytes())
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "",
                      "data_type": {"i": "int", "u": "uint", "f": "float"}[kind] + str(8 * np.dtype(dtype).itemsize),
                      "shape": list(shape), "reads": reads})
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
