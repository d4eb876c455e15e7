#!/usr/bin/python3
"""Writes the xarray fixtures (issue 21) and what xarray reads back from them.

Run with Debian's system python (python3-xarray 2023.01, python3-zarr 2.13, python3-cftime):
    /usr/bin/python3 testdata/xarray/generate.py
Each <name>.zarr is written by xarray's to_zarr (zarr v2, consolidated); <name>.expected.json
holds, per data variable, xr.open_zarr(store)[var].to_dataframe().reset_index() as
{"columns": [...], "rows": [[...], ...]}: timestamps (numpy or cftime) as their labels
"YYYY-MM-DD HH:MM:SS[.ffffff]", durations as integer microseconds, NaN/NaT as null.
"""
import datetime
import warnings
import json
import os
import shutil

import cftime
import numpy as np
import pandas as pd
import xarray as xr

HERE = os.path.dirname(os.path.abspath(__file__))


def label(v):
    return "%04d-%02d-%02d %02d:%02d:%02d%s" % (
        v.year, v.month, v.day, v.hour, v.minute, v.second,
        "" if v.microsecond == 0 else ".%06d" % v.microsecond)


def cell(v):
    if v is None or v is pd.NaT:
        return None
    if isinstance(v, (float, np.floating)):
        return None if np.isnan(v) else float(v)
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, pd.Timedelta):
        return None if pd.isna(v) else int(v.value // 1000)
    if isinstance(v, (np.timedelta64,)):
        return None if np.isnat(v) else int(v.astype("timedelta64[us]").astype(np.int64))
    if isinstance(v, np.datetime64):
        return None if np.isnat(v) else label(pd.Timestamp(v))
    if isinstance(v, (pd.Timestamp, datetime.datetime, cftime.datetime)):
        return label(v)
    if isinstance(v, bytes):
        return v.decode()
    return str(v)


def write(name, ds):
    store = os.path.join(HERE, name + ".zarr")
    shutil.rmtree(store, ignore_errors=True)
    ds.to_zarr(store, consolidated=True)
    back = xr.open_zarr(store)
    expected = {}
    for var in back.data_vars:
        df = back[var].to_dataframe().reset_index()
        expected[var] = {
            "columns": [str(c) for c in df.columns],
            "rows": [[cell(v) for v in row] for row in df.itertuples(index=False, name=None)],
        }
    with open(os.path.join(HERE, name + ".expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


def era5():
    time = pd.date_range("2020-01-01", periods=6, freq="6H")
    lat = np.array([60.0, 45.0, 30.0])
    lon = np.array([0.0, 90.0, 180.0, 270.0])
    rng = np.random.default_rng(21)
    msl = 100000 + rng.normal(0, 1500, (6, 3, 4))
    msl[1, 2, 3] = np.nan
    msl[4, 0, 0] = np.nan
    t2m = (280 + rng.normal(0, 10, (6, 3, 4))).astype(np.float32)
    t2m[0, 0, 1] = np.nan
    t2m[5, 2, 2] = np.nan
    ds = xr.Dataset(
        {
            "msl": (("time", "latitude", "longitude"), msl, {"units": "Pa", "long_name": "Mean sea level pressure"}),
            "t2m": (("time", "latitude", "longitude"), t2m, {"units": "K"}),
        },
        coords={"time": time, "latitude": lat, "longitude": lon},
    )
    ds["msl"].encoding = {"dtype": "int16", "scale_factor": 0.1, "add_offset": 100000.0, "_FillValue": -32767}
    ds["t2m"].encoding = {"_FillValue": np.float32("nan")}
    ds["time"].encoding = {"units": "hours since 1900-01-01", "calendar": "gregorian", "dtype": "int32"}
    write("era5", ds)


def calendars():
    coords = {}
    data = {}
    for cal, start in [("noleap", "2000-02-25"), ("all_leap", "2001-02-25"), ("julian", "1901-02-25"),
                       ("proleptic_gregorian", "1500-02-25"), ("360_day", "2000-02-25")]:
        t = xr.cftime_range(start, periods=8, freq="D", calendar=cal)
        dim = "time_" + cal
        coords[dim] = (dim, t)
        data["tas_" + cal] = ((dim,), np.arange(8, dtype=np.float32) + 270)
    ds = xr.Dataset(data, coords=coords)
    for cal in ["noleap", "all_leap", "julian", "proleptic_gregorian", "360_day"]:
        ds["time_" + cal].encoding = {"units": "days since 1850-01-01", "calendar": cal}
    # CMIP6-style: a noleap time in hours as float64, and a data variable with the same calendar
    t = xr.cftime_range("2014-12-30", periods=6, freq="12H", calendar="noleap")
    ds = ds.assign_coords(time=("time", t))
    ds["tas"] = (("time",), np.linspace(250, 255, 6))
    ds["time"].encoding = {"units": "days since 1850-01-01", "calendar": "noleap", "dtype": "float64"}
    write("calendars", ds)


def stations():
    station = np.array(["EGLL", "KJFK", "LFPG", "RJTT"])
    time = pd.date_range("2021-03-01", periods=5, freq="H")
    temperature = np.arange(20, dtype=np.float64).reshape(4, 5) / 2
    temperature[2, 3] = np.nan
    obs = np.array(
        [[pd.Timestamp("2021-03-01") + pd.Timedelta(minutes=60 * j + 7 * i) for j in range(5)] for i in range(4)],
        dtype="datetime64[ns]")
    obs[1, 1] = np.datetime64("NaT")
    delay = (np.arange(20).reshape(4, 5) * 15).astype("timedelta64[m]").astype("timedelta64[ns]")
    delay[3, 4] = np.timedelta64("NaT")
    ok = (np.arange(20).reshape(4, 5) % 3) == 0
    ds = xr.Dataset(
        {
            "temperature": (("station", "time"), temperature),
            "obs_time": (("station", "time"), obs),
            "delay": (("station", "time"), delay),
            "ok": (("station", "time"), ok),
            # raw numbers carrying CF units: minutes since (a time) and hours (a duration)
            "report_time": (("station", "time"), np.arange(20, dtype=np.int32).reshape(4, 5) * 10,
                            {"units": "minutes since 2021-03-01 00:00:00"}),
            "window": (("station", "time"), np.arange(20, dtype=np.float64).reshape(4, 5) / 4,
                       {"units": "hours"}),
        },
        coords={"station": station, "time": time},
    )
    # NaT is written as the v2 fill_value (xarray's _FillValue)
    ds["obs_time"].encoding = {"units": "minutes since 2021-01-01", "dtype": "int64", "_FillValue": -1}
    ds["delay"].encoding = {"units": "minutes", "dtype": "int64", "_FillValue": -1}
    write("stations", ds)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    era5()
    calendars()
    stations()
