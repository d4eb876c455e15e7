"""Writes testdata/xarray_client/coords.zarr with Debian's xarray: non-dimension coordinates of the
shapes era5.zarr lacks, and what to_dataframe().reset_index() gives for them (the expected values
of the table layout's coordinate columns, zaro-arrow's CoordinateColumnsTest).

  /usr/bin/python3 testdata/xarray_client/generate_coords.py

v (t, y, x) float64 with coordinates: tr (x, y) transposed against v, ty (t, y) packed
(scale_factor 0.5, _FillValue -1, one missing), sc a scalar, when (t) CF times with a NaT.
expected/coords.v.table.npz holds a numpy array per column (datetime64[ns], NaN for missing) of
v.isel(t=slice(1, 5, 2)), its column order in coords.v.table.json. Nothing here is written or
read by zaro.
"""
import json
import pathlib
import shutil

import numpy as np
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
STORE = HERE / "coords.zarr"

rng = np.random.default_rng(1)
ty = np.arange(15).reshape(5, 3) * 1.5
ty[3, 1] = np.nan
ds = xr.Dataset(
    {"v": (("t", "y", "x"), rng.normal(size=(5, 3, 4)))},
    coords={
        "t": np.arange(5),
        "y": [10.0, 20.0, 30.0],
        "x": [1.0, 2.0, 3.0, 4.0],
        "tr": (("x", "y"), np.arange(12, dtype=np.int16).reshape(4, 3)),
        "ty": (("t", "y"), ty),
        "sc": ((), 7),
        "when": ("t", np.array(["2020-01-01", "2020-01-02", "NaT", "2020-01-04", "2020-01-05"],
                               dtype="datetime64[ns]")),
    },
)
encoding = {"ty": {"dtype": "int16", "scale_factor": 0.5, "_FillValue": -1},
            "when": {"units": "days since 2000-01-01"}}
shutil.rmtree(STORE, ignore_errors=True)
ds.to_zarr(STORE, encoding=encoding, consolidated=True)
df = xr.open_zarr(STORE)["v"].isel(t=slice(1, 5, 2)).to_dataframe().reset_index()
np.savez_compressed(HERE / "expected" / "coords.v.table.npz", **{c: df[c].to_numpy() for c in df.columns})
(HERE / "expected" / "coords.v.table.json").write_text(json.dumps(list(df.columns)) + "\n")
