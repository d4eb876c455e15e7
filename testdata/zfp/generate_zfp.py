"""Zarr v2 arrays compressed with zfp (numcodecs' zfpy compressor), written by zarr-python 2 and
Debian's zfpy (zfp 1.0) — `apt-get install python3-zarr python3-zfpy` — in every zfp mode:
fixed accuracy, rate and precision through numcodecs.ZFPY, and reversible (which numcodecs 0.11's
ZFPY cannot select) chunk by chunk with zfpy.compress_numpy under a hand-written .zarray.
float32, float64, int32 and int64 in 1 to 4 dimensions, partial blocks, all-zero blocks and a
missing chunk. Expected values are zarr-python's read (zfpy's own decompression), raw little endian.

Also Zarr v3 arrays with the zarr-extensions `zfp` codec (a zfp stream without header): zfpy's
stream for each chunk with its 96-bit header (magic, field, 12-bit mode) cut off, under a
hand-written zarr.json; the header's mode word is checked against the configuration written.

Run with the system python: /usr/bin/python3 testdata/zfp/generate_zfp.py
"""
import json
import pathlib
import shutil
import sys

import numcodecs
import numpy as np
import zarr
import zfpy

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import to_index  # noqa: E402  (testdata/selection.py)
assert zarr.__version__.startswith("2."), zarr.__version__


def field(rng, shape, dtype):
    grids = np.meshgrid(*[np.linspace(0, 3, n) for n in shape], indexing="ij")
    smooth = sum(np.sin(g * (i + 1)) for i, g in enumerate(grids)) * 1000 + rng.normal(0, 5, shape)
    out = smooth.astype(dtype)
    out[tuple(slice(0, min(4, n)) for n in shape)] = 0      # an all-zero block
    return out


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    rng = np.random.default_rng(21)
    cases = []
    A, R, P = zfpy.mode_fixed_accuracy, zfpy.mode_fixed_rate, zfpy.mode_fixed_precision
    specs = [  # name, dtype, shape, chunks, mode, parameter, selections
        ("accuracy_f4_1d", "<f4", (50,), (13,), A, 1e-2, ["", "7:44:3"]),
        ("rate_f8_2d", "<f8", (7, 9), (6, 7), R, 8.0, ["", "1:7:2, 2:9"]),
        ("precision_f4_3d", "<f4", (6, 7, 9), (5, 5, 6), P, 12, ["", "1:6, 3, ::2"]),
        ("accuracy_f8_4d", "<f8", (5, 6, 4, 7), (4, 5, 4, 6), A, 1e-6, ["", "1:5, :, 2, 3:7"]),
        ("rate_f4_4d", "<f4", (5, 5, 5, 5), (5, 5, 5, 5), R, 5.5, [""]),
        ("precision_i4_2d", "<i4", (9, 10), (5, 6), P, 20, ["", "2:9, 1:10:3"]),
        ("rate_i8_1d", "<i8", (30,), (11,), R, 16.0, ["", "5:25"]),
        ("precision_i8_3d", "<i8", (5, 6, 7), (4, 4, 7), P, 40, [""]),
        ("reversible_f4_2d", "<f4", (9, 10), (5, 6), None, None, ["", "2:9, 1:10:3"]),
        ("reversible_f8_3d", "<f8", (5, 6, 7), (4, 5, 7), None, None, [""]),
        ("reversible_i4_4d", "<i4", (4, 5, 6, 3), (4, 5, 6, 3), None, None, [""]),
        ("reversible_i8_1d", "<i8", (30,), (11,), None, None, ["", "5:25"]),
    ]
    for name, dtype, shape, chunks, mode, param, selections in specs:
        data = field(rng, shape, dtype)
        path = str(HERE / "stores" / f"{name}.zarr")
        if mode is not None:
            kw = {A: "tolerance", R: "rate", P: "precision"}[mode]
            compressor = numcodecs.ZFPY(mode=mode, **{kw: param})
            z = zarr.open_array(path, mode="w", shape=shape, chunks=chunks, dtype=dtype, compressor=compressor,
                                fill_value=0)
            z[...] = data
            missing = None
        else:
            # reversible: zfpy.compress_numpy with no parameters, chunk by chunk; one chunk left out
            z = zarr.open_array(path, mode="w", shape=shape, chunks=chunks, dtype=dtype, compressor=None,
                                fill_value=0)
            meta = json.loads((HERE / "stores" / f"{name}.zarr" / ".zarray").read_text())
            meta["compressor"] = {"id": "zfpy", "mode": 5, "tolerance": -1, "rate": -1, "precision": -1}
            (HERE / "stores" / f"{name}.zarr" / ".zarray").write_text(json.dumps(meta, indent=4, sort_keys=True))
            grid = [(s + c - 1) // c for s, c in zip(shape, chunks)]
            missing = tuple(g - 1 for g in grid) if np.prod(grid) > 1 else None
            for idx in np.ndindex(*grid):
                if idx == missing:
                    continue
                block = np.zeros(chunks, dtype=dtype)
                region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, shape))
                block[tuple(slice(0, r.stop - r.start) for r in region)] = data[region]
                encoded = zfpy.compress_numpy(block)
                assert np.array_equal(zfpy.decompress_numpy(encoded), block)     # lossless
                (HERE / "stores" / f"{name}.zarr" / ".".join(map(str, idx))).write_bytes(encoded)
        full = zarr.open_array(path, mode="r")[...]
        reads = []
        for i, sel in enumerate(selections):
            got = np.ascontiguousarray(full[to_index(sel)])
            exp = f"expected/{name}.{i}.bin"
            (HERE / exp).write_bytes(got.astype(got.dtype.newbyteorder("<")).tobytes())
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        kind = {"f": "float", "i": "int"}[np.dtype(dtype).kind]
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "shape": list(shape),
                      "data_type": kind + str(8 * np.dtype(dtype).itemsize), "reads": reads})
    cases += v3_cases(rng)
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


def mode_word(encoded):
    """The 12-bit mode of zfpy's header: bits 84..95 of the little-endian bit stream."""
    return (int.from_bytes(encoded[:16], "little") >> 84) & 0xFFF


def v3_cases(rng):
    cases = []
    specs = [  # name, dtype, data_type, shape, chunks, zfpy kwargs, configuration, expected mode word
        ("v3_reversible_f8_2d", "<f8", "float64", (9, 10), (5, 6), {}, {"mode": "reversible"}, 2048 + 128),
        ("v3_precision_f4_3d", "<f4", "float32", (6, 7, 9), (5, 5, 6), {"precision": 14},
         {"mode": "fixed_precision", "precision": 14}, 2048 + 14 - 1),
        ("v3_accuracy_f8_1d", "<f8", "float64", (40,), (13,), {"tolerance": 0.01},
         {"mode": "fixed_accuracy", "tolerance": 0.01}, None),
        ("v3_rate_f4_3d", "<f4", "float32", (6, 7, 9), (5, 5, 6), {"rate": 6.5},
         {"mode": "fixed_rate", "rate": 6.5}, int(64 * 6.5 + 0.5) - 1),
        ("v3_precision_i4_4d", "<i4", "int32", (5, 5, 6, 3), (4, 5, 6, 3), {"precision": 24},
         {"mode": "fixed_precision", "precision": 24}, 2048 + 24 - 1),
        ("v3_reversible_i8_2d", "<i8", "int64", (9, 10), (5, 6), {}, {"mode": "reversible"}, 2048 + 128),
        # expert mode with the parameters zfp's fixed rate and fixed accuracy modes set (same streams)
        ("v3_expert_as_rate_f8_2d", "<f8", "float64", (9, 10), (5, 6), {"rate": 20},
         {"mode": "expert", "minbits": 320, "maxbits": 320, "maxprec": 64, "minexp": -1074}, 320 - 1),
        ("v3_expert_as_accuracy_f4_3d", "<f4", "float32", (6, 7, 9), (5, 5, 6), {"tolerance": 0.5},
         {"mode": "expert", "minbits": 1, "maxbits": 16658, "maxprec": 64, "minexp": -1}, 2048 + 128 + 1 + 1074 - 1),
        # uint32/uint64: an int32/int64 zfp stream of min(value, INT_MAX), read back as max(value, 0)
        # (zarrs' promotion and demotion; zfp has no unsigned types); 0-d chunks: a 1-d field of 1
        ("v3_reversible_u4_2d", "<u4", "uint32", (9, 10), (5, 6), {}, {"mode": "reversible"}, 2048 + 128),
        ("v3_precision_u4_3d", "<u4", "uint32", (6, 7, 9), (5, 5, 6), {"precision": 6},
         {"mode": "fixed_precision", "precision": 6}, 2048 + 6 - 1),
        ("v3_precision_u8_2d", "<u8", "uint64", (9, 10), (5, 6), {"precision": 30},
         {"mode": "fixed_precision", "precision": 30}, 2048 + 30 - 1),
        ("v3_reversible_f8_0d", "<f8", "float64", (), (), {}, {"mode": "reversible"}, 2048 + 128),
        ("v3_precision_i4_0d", "<i4", "int32", (), (), {"precision": 20},
         {"mode": "fixed_precision", "precision": 20}, 2048 + 20 - 1),
    ]
    for name, dtype, data_type, shape, chunks, kwargs, config, want_mode in specs:
        zdtype = {"<u4": "<i4", "<u8": "<i8"}.get(dtype, dtype)
        if not shape:
            data = np.array(-4321.25 if "f" in dtype else 4321, dtype=dtype)
        elif zdtype != dtype:
            data = np.abs(field(rng, shape, "<f8")).astype(dtype)
        else:
            data = field(rng, shape, dtype)
        root = HERE / "stores" / f"{name}.zarr"
        root.mkdir(parents=True)
        meta = {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": data_type,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": 0, "codecs": [{"name": "zfp", "configuration": config}],
                "attributes": {"written_by": "zfpy (header removed)"}}
        (root / "zarr.json").write_text(json.dumps(meta, indent=1))
        grid = [(s + c - 1) // c for s, c in zip(shape, chunks)]
        full = np.zeros(shape, dtype=dtype)
        for idx in np.ndindex(*grid):
            block = np.zeros(chunks, dtype=dtype)
            region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, shape))
            block[tuple(slice(0, r.stop - r.start) for r in region)] = data[region]
            encoded = zfpy.compress_numpy(block.astype(zdtype).reshape(block.shape or (1,)), **kwargs)
            mode = mode_word(encoded)
            if want_mode is not None:
                assert mode == want_mode, (name, mode, want_mode)
            else:  # fixed accuracy: minexp = floor(log2(tolerance)) = mode + ZFP_MIN_EXP - 2177
                assert mode - 1074 - 2177 == int(np.floor(np.log2(kwargs["tolerance"]))), mode
            key = root / "c" / "/".join(map(str, idx))
            key.parent.mkdir(parents=True, exist_ok=True)
            key.write_bytes(encoded[12:])
            decoded = zfpy.decompress_numpy(encoded).reshape(block.shape)
            if zdtype != dtype:
                decoded = np.maximum(decoded, 0).astype(dtype)
            full[region] = decoded[tuple(slice(0, r.stop - r.start) for r in region)]
        reads = []
        for i, sel in enumerate(["", ", ".join(["1:"] * len(shape))] if shape else [""]):
            got = full[to_index(sel)]
            got = np.ascontiguousarray(got).reshape(np.shape(got))   # (ascontiguousarray makes 0-d 1-d)
            exp = f"expected/{name}.{i}.bin"
            (HERE / exp).write_bytes(got.astype(got.dtype.newbyteorder("<")).tobytes())
            reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": f"stores/{name}.zarr", "path": "", "shape": list(shape),
                      "data_type": data_type, "reads": reads})
    return cases


if __name__ == "__main__":
    main()
