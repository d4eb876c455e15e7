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


# Non-dimension coordinates (expver(time), land(latitude, longitude), station(sector)) are
# columns, as to_dataframe() gives them: testdata/xarray_client/era5.zarr against the tables
# Debian's xarray wrote beside it (expected/era5.<var>.table.npz, column order in .json).
CLIENT = ROOT / "testdata" / "xarray_client"
ERA5 = CLIENT / "era5.zarr"


def expected_table(var):
    order = json.loads((CLIENT / "expected" / f"era5.{var}.table.json").read_text())
    with np.load(CLIENT / "expected" / f"era5.{var}.table.npz") as z:
        return order, {c: z[c] for c in order}


def assert_table_equals(got, var):
    order, want = expected_table(var)
    assert got.column_names == order
    for c in order:
        w = want[c]
        column = got.column(c)
        if w.dtype.kind == "U":
            assert column.to_pylist() == w.tolist(), c
        elif w.dtype.kind == "M":
            g = column.to_numpy().astype("datetime64[ns]")
            np.testing.assert_array_equal(g, w, err_msg=c)
        else:
            g = column.to_numpy(zero_copy_only=False)
            if w.dtype.kind == "f":
                # nulls are xarray's NaN; xarray 2023.01 unpacks int16 to float32, zaro to float64
                g = np.where(column.is_null().to_numpy(zero_copy_only=False), np.nan, g).astype(w.dtype)
                np.testing.assert_array_equal(g, w, err_msg=c)
            else:
                assert column.null_count == 0, c
                assert g.dtype == w.dtype, c
                np.testing.assert_array_equal(g, w, err_msg=c)


@pytest.mark.parametrize("var", ["t2m", "msl", "band"])
def test_coordinate_columns_equal_xarray(var, tmp_path):
    out = tmp_path / f"{var}.arrow"
    result = subprocess.run([ZARO, "read", str(ERA5), var, "--layout", "table", "--batch-rows", "1000",
                             "--out", str(out)], env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert_table_equals(pa.ipc.open_file(str(out)).read_all(), var)


def test_coordinate_columns_over_flight_and_http():
    import urllib.request
    import pyarrow.flight as fl
    from zaro_server import Server
    with Server(ERA5, "--http-port", 0) as server:
        client = fl.connect(server.uri)
        got = pa.ipc.open_stream(urllib.request.urlopen(f"{server.http}/arrays/band?layout=table")).read_all()
        assert_table_equals(got, "band")
        for var in ["t2m", "msl", "band"]:
            info = client.get_flight_info(fl.FlightDescriptor.for_command(
                json.dumps({"array": var, "layout": "table"})))
            got = pa.concat_tables([client.do_get(e.ticket).read_all() for e in info.endpoints])
            assert_table_equals(got, var)
        # projected: a coordinate column alone
        info = client.get_flight_info(fl.FlightDescriptor.for_command(
            json.dumps({"array": "msl", "layout": "table", "columns": ["land"]})))
        got = pa.concat_tables([client.do_get(e.ticket).read_all() for e in info.endpoints])
        assert got.column_names == ["land"]
        np.testing.assert_array_equal(got.column("land").to_numpy(), expected_table("msl")[1]["land"])


def test_coordinate_columns_in_sql():
    result = subprocess.run([ZARO, "sql", str(ERA5),
                             "select expver, count(*), count(t2m), sum(land) from t2m group by 1 order by 1"],
                            env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    _, t2m = expected_table("t2m")
    rows = [line.split() for line in result.stdout.splitlines()[2:] if line and not line.startswith("(")]
    want = []
    for v in np.unique(t2m["expver"]):
        k = t2m["expver"] == v
        want.append([v, str(k.sum()), str((k & ~np.isnan(t2m["t2m"])).sum()), str(t2m["land"][k].astype(int).sum())])
    assert rows == want
