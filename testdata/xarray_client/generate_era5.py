"""Writes testdata/xarray_client/era5.zarr: an ERA5-like store written by xarray (Debian's
xarray and zarr-python 2.13), and what xr.open_zarr reads back from it: the expected values of
the zaro_client xarray backend's fidelity tests (tests/python/test_xarray_backend.py).

  /usr/bin/python3 testdata/xarray_client/generate_era5.py              # the fixture (small)
  /usr/bin/python3 testdata/xarray_client/generate_era5.py --full DIR   # 240 x 181 x 360 (benchmarks)

The store (root group, Zarr v2, consolidated):
- time: hourly, CF "hours since 1900-01-01" in int32; latitude descending (90 .. -90), longitude
- t2m (time, latitude, longitude): float32 with NaNs, chunks (24, all, all)
- msl (time, latitude, longitude): packed int16 (scale_factor 0.1, add_offset 100000,
  _FillValue -32767) with missing values
- sector: a string dimension coordinate (fixed width, <U5); band (time, sector): float64
- expver (time): a fixed-width string non-dimension coordinate (<U4)
- station (sector): a variable-length string non-dimension coordinate (object)
- land (latitude, longitude): a uint8 non-dimension coordinate over two of the three dimensions

expected/era5.json and expected/era5.<var>.npy: xr.open_zarr(era5.zarr) (CF decoded), and
era5.raw.json / era5.raw.<var>.npy with decode_cf=False (object strings as .json lists);
expected/era5.<var>.table.npz: to_dataframe().reset_index() of each data variable, a numpy
array per column (object strings as unicode), its column order in era5.<var>.table.json. Nothing here is written or read by zaro.
"""
import argparse
import json
import pathlib
import shutil

import numpy as np
import pandas as pd
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
EXPECTED = HERE / "expected"


def dataset(nt, nlat, nlon, rng):
    time = pd.date_range("2020-01-01", periods=nt, freq="h")
    lat = np.linspace(90.0, -90.0, nlat)
    lon = np.linspace(0.0, 360.0, nlon, endpoint=False)
    t2m = (280 + 15 * np.cos(np.deg2rad(lat))[None, :, None]
           + rng.normal(0, 3, (nt, nlat, nlon))).astype(np.float32)
    t2m[1, 2, :5] = np.nan
    t2m[nt - 1, nlat // 2, nlon // 3] = np.nan
    msl = 100000 + rng.normal(0, 1500, (nt, nlat, nlon))
    msl[0, 0, 0] = np.nan
    msl[nt // 2, 3:5, 7] = np.nan
    sector = np.array(["north", "south", "east", "west"])
    band = rng.normal(0, 1, (nt, sector.size))
    band[3, 1] = np.nan
    expver = np.where(np.arange(nt) < nt - 5, "0001", "0005")
    land = (rng.random((nlat, nlon)) > 0.7).astype(np.uint8)
    ds = xr.Dataset(
        {
            "t2m": (("time", "latitude", "longitude"), t2m,
                    {"units": "K", "long_name": "2 metre temperature"}),
            "msl": (("time", "latitude", "longitude"), msl,
                    {"units": "Pa", "long_name": "Mean sea level pressure"}),
            "band": (("time", "sector"), band, {"units": "1", "long_name": "sector anomaly"}),
        },
        coords={
            "time": ("time", time, {"long_name": "time"}),
            "latitude": ("latitude", lat, {"units": "degrees_north"}),
            "longitude": ("longitude", lon, {"units": "degrees_east"}),
            "sector": ("sector", sector),
            "expver": ("time", expver, {"long_name": "experiment version"}),
            "station": ("sector", np.array(["Tromsø", "Cape Town", "Osaka", "Lima"], dtype=object)),
            "land": (("latitude", "longitude"), land, {"long_name": "land mask"}),
        },
        attrs={"title": "zaro ERA5-like fixture", "Conventions": "CF-1.7"},
    )
    encoding = {
        "time": {"units": "hours since 1900-01-01", "calendar": "gregorian", "dtype": "int32"},
        "t2m": {"chunks": (24, nlat, nlon), "_FillValue": np.float32("nan")},
        "msl": {"chunks": (24, nlat, nlon), "dtype": "int16", "scale_factor": 0.1,
                "add_offset": 100000.0, "_FillValue": -32767},
        "band": {"chunks": (24, sector.size)},
        "sector": {"dtype": "<U5"},
        "expver": {"dtype": "<U4"},
    }
    return ds, encoding


def dump(ds, name):
    doc = {"attrs": jsonable(ds.attrs), "variables": {}}
    for k, v in ds.variables.items():
        values = v.values
        if values.dtype == object:
            (EXPECTED / f"{name}.{k}.json").write_text(json.dumps(values.tolist()) + "\n")
        else:
            np.save(EXPECTED / f"{name}.{k}.npy", values, allow_pickle=False)
        doc["variables"][k] = {"dims": list(v.dims), "dtype": str(v.dtype), "attrs": jsonable(v.attrs),
                               "encoding": jsonable({e: v.encoding[e] for e in ("dtype", "scale_factor",
                                                    "add_offset", "units", "calendar", "_FillValue")
                                                     if e in v.encoding}),
                               "coordinate": k in ds.coords}
    (EXPECTED / f"{name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def jsonable(attrs):
    out = {}
    for k, v in attrs.items():
        if isinstance(v, np.dtype):
            v = str(v)
        elif isinstance(v, np.generic):
            v = v.item()
        if isinstance(v, float) and np.isnan(v):
            v = "NaN"
        out[k] = v
    return out


def tables(ds, name):
    for var in ds.data_vars:
        df = ds[var].to_dataframe().reset_index()
        columns = {c: (df[c].to_numpy().astype(str) if df[c].dtype == object else df[c].to_numpy())
                   for c in df.columns}
        np.savez_compressed(EXPECTED / f"{name}.{var}.table.npz", **columns)
        (EXPECTED / f"{name}.{var}.table.json").write_text(json.dumps(list(df.columns)) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", help="write the benchmark-sized store (240 x 181 x 360) here")
    args = parser.parse_args()
    rng = np.random.default_rng(42)
    if args.full:
        store = pathlib.Path(args.full)
        if store.exists():
            shutil.rmtree(store)
        ds, enc = dataset(240, 181, 360, rng)
        ds.to_zarr(store, encoding=enc, consolidated=True)
        print(f"wrote {store}")
        return
    store = HERE / "era5.zarr"
    if store.exists():
        shutil.rmtree(store)
    for old in EXPECTED.glob("era5.*"):
        old.unlink()
    ds, enc = dataset(48, 10, 12, rng)
    ds.to_zarr(store, encoding=enc, consolidated=True)
    opened = xr.open_zarr(store).load()
    dump(opened, "era5")
    dump(xr.open_zarr(store, decode_cf=False).load(), "era5.raw")
    tables(opened, "era5")
    print(f"wrote {store} and {EXPECTED}/era5.*")


if __name__ == "__main__":
    main()
