"""Writes testdata/xarray_client/: a Zarr v2 store written by xarray (Debian's xarray 2023.01 and
zarr-python 2.13) with what CF decoding has to get right, and what xr.open_zarr reads back
from it, the expected values of the zaro_client xarray backend (tests/python/test_zaro_client.py).

  /usr/bin/python3 testdata/xarray_client/generate_xarray_client.py

- cf.zarr, root group: time (days since 2000-01-01, int64, no fill value: its first value is 0,
  which must not read as missing), lat/lon float64, temp (packed int16: scale_factor 0.01,
  add_offset 280, _FillValue -32767, with NaNs), precip (float32, NaN fill, with NaNs), flag
  (int8 without a fill value, zeros included), area (a 2-D auxiliary coordinate of lat, lon)
- cf.zarr/forecast: a nested group (wind (valid_time, lat), float64 with missing values, CF
  times in int32 hours), for open_datatree and group=
- expected/<group>.raw.json and .npy files: xr.open_zarr(cf.zarr, group=..., decode_cf=False)
  as this xarray reads it (what xarray's zarr store layer hands to CF decoding: dimension
  names, attributes, the v2 fill_value as _FillValue): per variable its dims, dtype, attrs,
  whether it is a coordinate, and its values; expected/<group>.json and .npy: the same with
  CF decoding (Debian's xarray 2023.01 unpacks int16 to float32 where newer ones give float64,
  so tests compare those values within float32 precision). Nothing here is written or read by zaro.
"""
import json
import pathlib
import shutil

import numpy as np
import pandas as pd
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
STORE = HERE / "cf.zarr"
EXPECTED = HERE / "expected"


def root_dataset(rng):
    time = pd.date_range("2000-01-01", periods=10, freq="D")
    lat = np.linspace(60.0, 30.0, 7)
    lon = np.arange(8) * 2.5
    temp = (280 + 10 * rng.standard_normal((10, 7, 8))).round(2)
    temp[2, 3, :4] = np.nan
    temp[7, :, 5] = np.nan
    precip = rng.gamma(1.0, 2.0, (10, 7, 8)).astype(np.float32)
    precip[0, 0, 0] = np.nan
    precip[9, 6, :] = np.nan
    flag = rng.integers(0, 3, (10, 7, 8)).astype(np.int8)
    flag[0] = 0
    area = np.cos(np.deg2rad(lat))[:, None] * np.ones((7, 8), dtype=np.float32)
    ds = xr.Dataset(
        {
            "temp": (("time", "lat", "lon"), temp, {"units": "K", "long_name": "air temperature",
                                                    "standard_name": "air_temperature"}),
            "precip": (("time", "lat", "lon"), precip, {"units": "mm", "long_name": "precipitation"}),
            "flag": (("time", "lat", "lon"), flag, {"long_name": "quality flag", "flag_values": "0 1 2"}),
        },
        coords={
            "time": ("time", time, {"long_name": "time"}),
            "lat": ("lat", lat, {"units": "degrees_north", "standard_name": "latitude"}),
            "lon": ("lon", lon, {"units": "degrees_east", "standard_name": "longitude"}),
            "area": (("lat", "lon"), area.astype(np.float32), {"units": "1", "long_name": "relative cell area"}),
        },
        attrs={"title": "zaro xarray_client fixture", "Conventions": "CF-1.8", "version": 3},
    )
    encoding = {
        "time": {"units": "days since 2000-01-01", "calendar": "proleptic_gregorian", "dtype": "int64"},
        "temp": {"dtype": "int16", "scale_factor": 0.01, "add_offset": 280.0, "_FillValue": -32767,
                 "chunks": (4, 3, 4)},
        "precip": {"chunks": (5, 7, 4)},
        "flag": {"chunks": (10, 4, 8)},
    }
    return ds, encoding


def forecast_dataset(rng):
    valid_time = pd.date_range("2000-01-03T06:00", periods=6, freq="12h")
    wind = rng.uniform(0, 20, (6, 7)).round(3)
    wind[1, 2] = np.nan
    ds = xr.Dataset(
        {"wind": (("valid_time", "lat"), wind, {"units": "m s-1", "long_name": "wind speed"})},
        coords={"valid_time": ("valid_time", valid_time),
                "lat": ("lat", np.linspace(60.0, 30.0, 7), {"units": "degrees_north", "standard_name": "latitude"})},
        attrs={"title": "forecast group"},
    )
    return ds, {"valid_time": {"units": "hours since 2000-01-01 00:00:00", "dtype": "int32"},
                "wind": {"chunks": (2, 7)}}


def dump(ds, name):
    """What open_zarr returned, as JSON (dims, dtype, attrs, coordinate or not) and .npy values."""
    doc = {"attrs": jsonable(ds.attrs), "variables": {}}
    for k, v in ds.variables.items():
        np.save(EXPECTED / f"{name}.{k}.npy", v.values, allow_pickle=False)
        doc["variables"][k] = {"dims": list(v.dims), "dtype": str(v.dtype), "attrs": jsonable(v.attrs),
                               "coordinate": k in ds.coords}
    (EXPECTED / f"{name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def jsonable(attrs):
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in attrs.items()}


def main():
    for p in (STORE, EXPECTED):
        if p.exists():
            shutil.rmtree(p)
    EXPECTED.mkdir()
    rng = np.random.default_rng(24)
    ds, enc = root_dataset(rng)
    ds.to_zarr(STORE, encoding=enc, consolidated=True)
    fc, fenc = forecast_dataset(rng)
    fc.to_zarr(STORE, group="forecast", encoding=fenc, consolidated=True)
    for group, name in [(None, "root"), ("forecast", "forecast")]:
        dump(xr.open_zarr(STORE, group=group).load(), name)
        dump(xr.open_zarr(STORE, group=group, decode_cf=False).load(), name + ".raw")
    print(f"wrote {STORE} and {EXPECTED}")


if __name__ == "__main__":
    main()
