"""numpy's time units and fixed-length bytes through `./zaro read` + pyarrow, the table layout, SQL
and Flight: testdata/numpytypes (v2 written by zarr-python 2, v3 zarr.json as zarr-python 3.0.x/3.1
write it). Expected values are numpy's own conversion of what the writer wrote to the Arrow
mapping (docs/formats.md, "Arrow shapes"): datetime64 D/W/M/Y as date32 (months and years: their first
day), h/m/[10s] as timestamp[s], timedelta64 W/D/h/m as duration[s], M/Y as month_interval, NaT
as null; numpy S<n> as binary without trailing NULs, V<n> as fixed_size_binary.
"""
import json
import subprocess

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest

from test_read_pyarrow import ENV, ROOT, ZARO, zaro_read
from zaro_server import Server

SET = ROOT / "testdata" / "numpytypes"


def cases():
    out = []
    for name in ("cases_v2.json", "cases_v3.json"):
        for case in json.loads((SET / name).read_text())["cases"]:
            out.append(pytest.param(case, id=case["name"]))
    return out


# the numpy unit each Arrow type's int values count
UNITS = {"date32": "M8[D]", "timestamp[s]": "M8[s]", "timestamp[ms]": "M8[ms]", "timestamp[ns]": "M8[ns]",
         "duration[s]": "m8[s]", "month_interval": "m8[M]"}
ARROW = {"date32": "date32[day]", "month_interval": "month_interval"}


def expected(case):
    """The case's values (numpy's, from the generator) as numpy: NaT for null, bytes for hex."""
    if case["arrow"] in UNITS:
        unit = UNITS[case["arrow"]]
        return np.array([np.datetime64("NaT") if v is None else v for v in case["values"]]
                        if unit[0] == "M" else
                        [np.timedelta64("NaT") if v is None else v for v in case["values"]]).astype(unit)
    if case["arrow"] == "int32":
        return np.array(case["values"], dtype="<i4")
    return [bytes.fromhex(v) for v in case["values"]]


def months(table, tensor):
    """A month_interval column's months through DuckDB, C order (pyarrow 25 reads the type in a
    schema but cannot make arrays of it: its flatten(), to_pylist() and slicing raise KeyError 21)."""
    con = duckdb.connect()
    con.execute("set threads = 1")
    con.register("t", table)
    values = "(select unnest(data) x from t)" if tensor else "(select data x from t)"
    rows = con.execute(f"select datepart('year', x) * 12 + datepart('month', x) from {values}").fetchall()
    return np.array([np.timedelta64("NaT") if m is None else m for (m,) in rows]).astype("m8[M]")


def as_numpy(values, case):
    """An Arrow array of the case's type as numpy values of the case's unit."""
    if case["arrow"] in UNITS:
        return values.to_numpy(zero_copy_only=False).astype(UNITS[case["arrow"]])
    if case["arrow"] == "int32":
        return values.to_numpy()
    return values.to_pylist()


def check(values, case, where, got=None):
    assert str(values.type) == ARROW.get(case["arrow"], case["arrow"]), where
    want = expected(case)
    got = as_numpy(values, case) if got is None else got
    if isinstance(want, list):
        assert got == want, where
    else:
        np.testing.assert_array_equal(got.view("i8") if got.dtype.kind in "Mm" else got,
                                      want.view("i8") if want.dtype.kind in "Mm" else want, err_msg=where)
        nulls = sum(v is None for v in case["values"])
        if isinstance(values, pa.Array):
            assert values.null_count == nulls, where
        if got.dtype.kind in "Mm":
            assert np.isnat(got).sum() == nulls, where


@pytest.mark.parametrize("case", cases())
def test_tensor_layout_equals_numpy(tmp_path, case):
    table = zaro_read(SET / case["store"], "/", "", tmp_path / "t.arrow")
    field = table.schema.field(0)
    if case["arrow"] == "month_interval":
        assert str(field.type.value_type) == "month_interval" and field.type.list_size == case["shape"][1]
        check(field.type.value_field, case, case["name"], got=months(table, tensor=True))
        return
    column = table.column(0).combine_chunks()
    if isinstance(column, pa.FixedShapeTensorArray):   # numbers: arrow.fixed_shape_tensor
        column = column.storage
    assert pa.types.is_fixed_size_list(column.type) and column.type.list_size == case["shape"][1]
    check(column.flatten(), case, case["name"])


@pytest.mark.parametrize("case", [c for c in cases() if c.values[0]["arrow"] in ("date32", "month_interval",
                                                                                    "timestamp[s]", "binary")])
def test_table_layout_equals_numpy(tmp_path, case):
    table = zaro_read(SET / case["store"], "/", "", tmp_path / "t.arrow", "--layout", "table")
    assert table.column_names == ["dim_0", "dim_1", "data"]
    if case["arrow"] == "month_interval":
        check(table.schema.field("data"), case, case["name"], got=months(table, tensor=False))
        return
    check(table.column("data").combine_chunks(), case, case["name"])


def test_sql_filters_and_groups_dates(tmp_path):
    """DuckDB (zaro sql) sees date32 as DATE: a filter on a date and a group by year equal numpy's."""
    case = next(c.values[0] for c in cases() if c.values[0]["name"] == "datetime_M")
    days = expected(case)
    out = tmp_path / "s.arrow"
    result = subprocess.run(
        [ZARO, "sql", str(SET / case["store"]),
         "select year(data) y, count(*) n from data where data >= DATE '1970-01-01' group by y order by y",
         "--out", str(out)], capture_output=True, text=True, env=ENV)
    assert result.returncode == 0, result.stderr
    table = pa.ipc.open_file(out).read_all()
    kept = days[~np.isnat(days) & (days >= np.datetime64("1970-01-01"))]
    years, counts = np.unique(kept.astype("M8[Y]").astype(int) + 1970, return_counts=True)
    assert table.column("y").to_pylist() == years.tolist()
    assert table.column("n").to_pylist() == counts.tolist()


def test_flight_table_of_dates():
    """Flight's table layout carries date32 with NaT as null, as the tensor layout does."""
    case = next(c.values[0] for c in cases() if c.values[0]["name"] == "zp31_datetime_D")
    with Server(SET / case["store"]) as server:
        client = fl.connect(server.uri)
        info = client.get_flight_info(fl.FlightDescriptor.for_command(
            json.dumps({"array": "/", "layout": "table"})))
        table = pa.concat_tables([client.do_get(e.ticket).read_all() for e in info.endpoints])
    assert table.schema.field("data").type == pa.date32()
    check(table.column("data").combine_chunks(), case, "flight")


def test_bad_time_values_exit_nonzero_naming_array_and_unit(tmp_path):
    """A stored value past Arrow's date32 range: a clear error, nothing written."""
    store = tmp_path / "far.zarr"
    store.mkdir()
    meta = json.loads((SET / "stores_v3" / "zp31_datetime_D.zarr" / "zarr.json").read_text())
    meta["codecs"] = [{"name": "bytes", "configuration": {"endian": "little"}}]
    meta["shape"], meta["chunk_grid"]["configuration"]["chunk_shape"] = [2], [2]
    (store / "zarr.json").write_text(json.dumps(meta))
    (store / "c").mkdir()
    (store / "c" / "0").write_bytes(np.array([1, 3_000_000_000], dtype="<i8").tobytes())
    out = tmp_path / "o.arrow"
    result = subprocess.run([ZARO, "read", str(store), "/", "--out", str(out)], capture_output=True, text=True,
                            env=ENV)
    assert result.returncode != 0
    assert "value 3000000000 of unit 'D' does not fit Arrow date32" in result.stderr
    assert not out.exists()
