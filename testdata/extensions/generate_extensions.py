"""Writes Zarr v3 arrays with registered extension data types that tensorstore cannot write,
chunk by chunk with numpy and numcodecs, plus numpy's expected values.

Run from the repository root: .venv/bin/python testdata/extensions/generate_extensions.py
Rewrites testdata/extensions/{stores,expected,cases.json}.
"""
import json
import pathlib
import shutil
import sys

import numcodecs
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import to_index  # noqa: E402  (testdata/selection.py)


def write_array(name, data, chunks, data_type, fill_value, fill_numpy, codecs, encode):
    """Writes data as a v3 array; chunks equal to the fill value everywhere are left out."""
    root = HERE / "stores" / f"{name}.zarr"
    root.mkdir(parents=True)
    meta = {"zarr_format": 3, "node_type": "array", "shape": list(data.shape), "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill_value, "codecs": codecs, "attributes": {"written_by": "numpy+numcodecs"}}
    (root / "zarr.json").write_text(json.dumps(meta, indent=1))
    grid = [(s + c - 1) // c for s, c in zip(data.shape, chunks)]
    for idx in np.ndindex(*grid):
        block = np.full(chunks, fill_numpy, dtype=data.dtype)
        region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, data.shape))
        part = data[region]
        block[tuple(slice(0, r.stop - r.start) for r in region)] = part
        if all(v == fill_numpy for v in np.ravel(part)) if data.dtype == object else \
                np.array_equal(part, np.full(part.shape, fill_numpy, dtype=data.dtype)):
            continue
        key = root / "c" / "/".join(str(i) for i in idx)
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(encode(block))


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    cases = []
    rng = np.random.default_rng(7)
    zstd = numcodecs.Zstd(level=3)
    bytes_le = {"name": "bytes", "configuration": {"endian": "little"}}
    bytes_be = {"name": "bytes", "configuration": {"endian": "big"}}

    # datetime64[ns] and [s]; timedelta64[ms]; NaT fill; some chunks all NaT (missing)
    specs = [
        ("datetime64_ns", "datetime64[ns]", "ns", [bytes_le, {"name": "zstd", "configuration": {"level": 3}}],
         lambda b: zstd.encode(b.astype("<M8[ns]").tobytes()), "numpy.datetime64"),
        ("datetime64_s_big", "datetime64[s]", "s", [bytes_be], lambda b: b.astype(">M8[s]").tobytes(), "numpy.datetime64"),
        ("timedelta64_ms", "timedelta64[ms]", "ms", [bytes_le], lambda b: b.astype("<m8[ms]").tobytes(), "numpy.timedelta64"),
    ]
    for name, dtype, unit, codecs, encode, type_name in specs:
        base = np.datetime64("2020-01-01T00:00:00", unit) if type_name == "numpy.datetime64" else np.timedelta64(0, unit)
        data = (base + rng.integers(0, 10**6, (9, 14)).astype(f"m8[{unit}]")).astype(dtype)
        data[5:, 10:] = np.array("NaT", dtype=dtype)
        write_array(name, data, (4, 5), {"name": type_name, "configuration": {"unit": unit, "scale_factor": 1}},
                    "NaT", np.array("NaT", dtype=dtype), codecs, encode)
        reads = []
        for i, sel in enumerate(["", "1:8:2, 3:13", "6, :"]):
            got = data[to_index(sel)]
            exp = f"expected/{name}.{i}.bin"
            np.ascontiguousarray(got).astype(got.dtype.newbyteorder("<")).view("<i8").tofile(HERE / exp)
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": type_name,
                      "unit": unit, "shape": list(data.shape), "reads": reads})

    # raw bits r24 and r8: numpy structured/void bytes
    for name, nbytes in [("raw_r24", 3), ("raw_r8", 1)]:
        data = rng.integers(0, 256, (7, 6, nbytes), dtype=np.uint8)
        data[4:, 3:] = [7] * nbytes
        dt = np.dtype(f"V{nbytes}")
        packed = np.ascontiguousarray(data).view(dt).reshape(7, 6)
        fill = np.frombuffer(bytes([7] * nbytes), dtype=dt)[0]
        write_array(name, packed, (3, 4), f"r{nbytes * 8}", [7] * nbytes, fill,
                    [bytes_le] if nbytes > 1 else [{"name": "bytes"}], lambda b: np.ascontiguousarray(b).tobytes())
        reads = []
        for i, sel in enumerate(["", "2:7, 1:5:2"]):
            got = packed[to_index(sel)]
            exp = f"expected/{name}.{i}.bin"
            (HERE / exp).write_bytes(np.ascontiguousarray(got).tobytes())
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": f"r{nbytes * 8}",
                      "shape": [7, 6], "reads": reads})
    # variable-length strings and bytes: numcodecs' VLenUTF8/VLenBytes write the vlen-utf8 and
    # vlen-bytes chunk format; expected values as JSON lists (strings; bytes as latin-1 text)
    words = np.array(["", "a", "zarr", "ünïcödé", "日本語テキスト", "x" * 300, "tab\tnew\nline", "🙂"], dtype=object)
    for name, kind, codec_name, fill, encoder in [
        ("string_vlen_zstd", "string", "vlen-utf8", "", numcodecs.VLenUTF8()),
        ("bytes_vlen", "bytes", "vlen-bytes", "AAE=", numcodecs.VLenBytes()),
    ]:
        data = np.empty((6, 7), dtype=object)
        for i, j in np.ndindex(6, 7):
            w = words[(i * 7 + j * 3) % len(words)] + str(i * j)
            data[i, j] = w if kind == "string" else w.encode("utf-8")
        fill_np = "" if kind == "string" else b"\x00\x01"
        data[4:, 4:] = fill_np
        codecs = [{"name": codec_name}] + ([{"name": "zstd", "configuration": {"level": 1}}] if kind == "string" else [])
        def encode(block, enc=encoder, kind=kind):
            raw = enc.encode(block.ravel())
            return zstd.encode(raw) if kind == "string" else raw
        write_array(name, data, (4, 4), kind, fill, fill_np, codecs, encode)
        reads = []
        for i, sel in enumerate(["", "1:6:2, 2:7", "5, :"]):
            got = data[to_index(sel)]
            values = [v if kind == "string" else v.decode("latin-1") for v in np.ravel(got)]
            exp = f"expected/{name}.{i}.json"
            (HERE / exp).write_text(json.dumps(values, ensure_ascii=False))
            reads.append({"slice": sel, "shape": list(np.shape(got)), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": kind,
                      "shape": [6, 7], "reads": reads})
    # fixed_length_utf32: numpy <U6 bytes (NUL-padded UTF-32LE), big-endian variant too
    for name, dtype, codecs in [("fixed_utf32_le", "<U6", [bytes_le]), ("fixed_utf32_be_zstd", ">U6", [bytes_be,
                                {"name": "zstd", "configuration": {"level": 1}}])]:
        data = np.array([words[(i * 3) % len(words)][:4] + str(i % 100) for i in range(5 * 8)], dtype="<U6").reshape(5, 8)
        data[3:, 5:] = "fill"
        def enc(block, dtype=dtype, codecs=codecs):
            raw = np.ascontiguousarray(block).astype(dtype).tobytes()
            return zstd.encode(raw) if len(codecs) > 1 else raw
        write_array(name, data, (2, 3), {"name": "fixed_length_utf32", "configuration": {"length_bytes": 24}},
                    "fill", np.str_("fill"), codecs, enc)
        reads = []
        for i, sel in enumerate(["", "1:5:2, 2:8", "4, :"]):
            got = data[to_index(sel)]
            exp = f"expected/{name}.{i}.json"
            (HERE / exp).write_text(json.dumps([str(v) for v in np.ravel(got)], ensure_ascii=False))
            reads.append({"slice": sel, "shape": list(np.shape(got)), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "data_type": "fixed_length_utf32",
                      "shape": [5, 8], "reads": reads})
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
