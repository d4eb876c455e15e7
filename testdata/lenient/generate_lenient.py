"""Zarr v2 stores whose JSON holds bare NaN / Infinity / -Infinity, as Python's json writes them.

Written by zarr-python 2 (Debian's python3-zarr 2.13): run with the system interpreter,
    /usr/bin/python3 testdata/lenient/generate_lenient.py
Outputs (deterministic; rewritten each run):
  stores/attrs.zarr     float32 array, NaN fill, .zattrs with valid_min NaN, valid_max Infinity,
                        offsets [-Infinity, 1.5]; consolidated .zmetadata (bare tokens there too)
  refs/attrs.json       a kerchunk v0 reference set over the same store (inline), bare tokens inside
  expected/attrs.bin    the array's values, little-endian float32, C order (numpy)
"""
import base64
import json
import math
import pathlib
import shutil

import numpy as np
import zarr

HERE = pathlib.Path(__file__).resolve().parent


def main():
    for sub in ("stores", "refs", "expected"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
        (HERE / sub).mkdir()
    path = HERE / "stores" / "attrs.zarr"
    root = zarr.open_group(str(path), mode="w")
    values = np.arange(6 * 5, dtype="<f4").reshape(6, 5) / 4
    values[1, 2] = np.nan
    a = root.create_dataset("v", shape=values.shape, chunks=(4, 3), dtype="<f4", fill_value=np.nan,
                            compressor=None)
    a[...] = values
    a.attrs["valid_min"] = math.nan
    a.attrs["valid_max"] = math.inf
    a.attrs["offsets"] = [-math.inf, 1.5]
    a.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
    root.attrs["history"] = math.nan
    zarr.consolidate_metadata(str(path))
    text = (path / "v" / ".zattrs").read_text()
    assert "NaN" in text and "Infinity" in text and "-Infinity" in text, text
    values.astype("<f4").tofile(HERE / "expected" / "attrs.bin")

    refs = {}
    for f in sorted(path.rglob("*")):
        if f.is_file():
            key = f.relative_to(path).as_posix()
            data = f.read_bytes()
            try:
                refs[key] = data.decode("utf-8") if key.split("/")[-1].startswith(".") else None
            except UnicodeDecodeError:
                refs[key] = None
            if refs[key] is None:
                refs[key] = "base64:" + base64.b64encode(data).decode()
    # the reference file itself holds bare tokens too (a top-level "meta" value)
    doc = json.dumps({"version": 1, "refs": refs, "meta": {"scale": math.nan}}, sort_keys=True, indent=1)
    assert "NaN" in doc
    (HERE / "refs" / "attrs.json").write_text(doc)


if __name__ == "__main__":
    main()
