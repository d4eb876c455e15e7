"""`./zaro read --layout table` on stores xarray wrote (testdata/xarray): pyarrow reads, from the
Arrow file, exactly what `xr.open_zarr(store)[var].to_dataframe().reset_index()` gave when the
store was written (the expected.json beside each store, written by that same xarray)."""
import datetime
import json
import os
import pathlib
import subprocess

import numpy as np
import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZARO = str(ROOT / "zaro")
ENV = dict(os.environ, ZARO_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
XARRAY = ROOT / "testdata" / "xarray"

# all_leap's 2001-02-29 is no Gregorian date: refused (test_all_leap_without_gregorian_date)
REFUSED = {"tas_all_leap"}


def cases():
    for store in ["era5", "calendars", "stations"]:
        expected = json.loads((XARRAY / f"{store}.expected.json").read_text())
        for var, table in expected.items():
            if var not in REFUSED:
                yield pytest.param(store, var, table, id=f"{store}-{var}")


def label(v):
    if isinstance(v, datetime.datetime):
        text = v.strftime("%Y-%m-%d %H:%M:%S")
        return text if v.microsecond == 0 else text + ".%06d" % v.microsecond
    if isinstance(v, datetime.timedelta):
        return (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
    return v


def read(store, var, tmp_path, *extra):
    out = tmp_path / f"{var}.arrow"
    result = subprocess.run([ZARO, "read", str(XARRAY / f"{store}.zarr"), var, "--layout", "table",
                             "--out", str(out), *extra], env=ENV, capture_output=True, text=True)
    return result, out


@pytest.mark.parametrize("store,var,table", list(cases()))
def test_table_equals_xarray(store, var, table, tmp_path):
    result, out = read(store, var, tmp_path)
    assert result.returncode == 0, result.stderr
    got = pa.ipc.open_file(str(out)).read_all()
    assert got.column_names == table["columns"]
    rows = [[label(v) for v in row.values()] for row in got.to_pylist()]
    want = table["rows"]
    assert len(rows) == len(want)
    # xarray 2023.01 unpacks int16 to float32; zaro (as xarray >= 2024.03) to float64
    float32 = var == "msl"
    for r, (g, w) in enumerate(zip(rows, want)):
        if float32:
            g = [float(np.float32(v)) if isinstance(v, float) else v for v in g]
        assert g == w, f"{var} row {r}"
    # the calendar is named in the field metadata, for timestamps and labels alike
    for field in got.schema:
        if field.name.startswith("time_") and not field.name.endswith("standard"):
            assert field.metadata[b"cf.calendar"] == field.name[len("time_"):].encode()


def test_types(tmp_path):
    result, out = read("stations", "obs_time", tmp_path)
    assert result.returncode == 0, result.stderr
    schema = pa.ipc.open_file(str(out)).schema
    assert schema.field("station").type == pa.string()
    assert schema.field("obs_time").type == pa.timestamp("us")
    for var, want in [("delay", pa.duration("us")), ("ok", pa.bool_()), ("window", pa.duration("us"))]:
        result, out = read("stations", var, tmp_path)
        assert result.returncode == 0, result.stderr
        assert pa.ipc.open_file(str(out)).schema.field(var).type == want
    result, out = read("calendars", "tas_360_day", tmp_path)
    assert pa.ipc.open_file(str(out)).schema.field("time_360_day").type == pa.string()


def test_all_leap_without_gregorian_date(tmp_path):
    result, out = read("calendars", "tas_all_leap", tmp_path)
    assert result.returncode != 0
    assert "2001-02-29 00:00:00" in result.stderr and "all_leap" in result.stderr
    assert not out.exists()
    # raw: days since 1850-01-01 in a 366-day calendar
    result, out = read("calendars", "tas_all_leap", tmp_path, "--raw")
    assert result.returncode == 0, result.stderr
    assert pa.ipc.open_file(str(out)).read_all().column("time_all_leap").to_pylist()[0] == (2001 - 1850) * 366 + 31 + 24
