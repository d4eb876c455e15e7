"""ML float types (testdata/mlfloats: every bit pattern of bfloat16's sample, each float8, float6
and float4 type, written by tensorstore or numpy) read as float32 values through the table layout,
Flight and SQL; expected values are ml_dtypes' widening, `astype(np.float32)`, of what tensorstore
reads back (numpy's own values for the types tensorstore lacks)."""
import json
import shutil
import subprocess

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest
import tensorstore as ts

from zaro_server import ROOT, ZARO, Server
from test_read_pyarrow import ENV, zaro_read

SET = ROOT / "testdata" / "mlfloats"
CASES = json.loads((SET / "cases.json").read_text())["cases"]


def reference(case):
    """The whole array's float32 values: ml_dtypes widening tensorstore's read, or numpy's."""
    store = SET / case["store"]
    if case["written_by"].startswith("tensorstore"):
        t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(store)}}).result()
        values = t.read().result()
        assert values.dtype.name == case["data_type"]
        return values.astype(np.float32)
    read = case["reads"][0]
    return np.fromfile(SET / read["expected"], dtype="<f4").reshape(read["shape"])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_table_layout_equals_ml_dtypes(tmp_path, case):
    table = zaro_read(SET / case["store"], "/", "", tmp_path / "t.arrow", "--layout", "table")
    want = reference(case)
    assert table.column_names == ["row", "col", "data"]
    field = table.schema.field("data")
    assert field.type == pa.float32()
    assert field.metadata[b"zarr.data_type"] == case["data_type"].encode()
    rows, cols = np.indices(want.shape)
    np.testing.assert_array_equal(table.column("row").to_numpy(), rows.ravel())
    np.testing.assert_array_equal(table.column("col").to_numpy(), cols.ravel())
    got = table.column("data").to_numpy()
    np.testing.assert_array_equal(got, want.ravel())
    # signs of zeros and NaNs as ml_dtypes has them (fnuz formats have no -0)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want.ravel()))


@pytest.fixture(scope="module")
def server():
    with Server(SET / "stores") as s:
        yield s.uri


@pytest.mark.parametrize("name", ["bfloat16", "bfloat16_sharded", "float8_e4m3fnuz", "float8_e8m0fnu",
                                  "float4_e2m1fn", "float6_e3m2fn"])
@pytest.mark.parametrize("layout", ["tensor", "table"])
def test_flight_reads_float32_values(server, name, layout):
    case = next(c for c in CASES if c["name"] == name)
    client = fl.connect(server)
    rows = case["shape"][0]
    command = json.dumps({"array": f"{name}.zarr", "slice": f"1:{rows - 1}, :", "layout": layout}).encode()
    info = client.get_flight_info(fl.FlightDescriptor.for_command(command))
    tables = [client.do_get(e.ticket).read_all() for e in info.endpoints]
    table = pa.concat_tables(tables)
    want = reference(case)[1:rows - 1]
    if layout == "tensor":
        column = table.column(0).combine_chunks()
        assert column.type.value_type == pa.float32()
        assert table.schema.field(0).metadata[b"zarr.data_type"] == case["data_type"].encode()
        np.testing.assert_array_equal(column.to_numpy_ndarray(), want)
    else:
        assert table.column_names == ["row", "col", f"{name}.zarr"]  # the value column: the array's name
        assert table.schema.field(2).metadata[b"zarr.data_type"] == case["data_type"].encode()
        np.testing.assert_array_equal(table.column(2).to_numpy(), want.ravel())


def test_sql_sees_numbers(tmp_path):
    """DuckDB over the table layout: aggregates and predicates on the float32 values."""
    case = next(c for c in CASES if c["name"] == "float8_e5m2")
    want = reference(case)
    group = tmp_path / "g.zarr"  # a group holding the array: its tables are its arrays
    shutil.copytree(SET / case["store"], group / "w")
    (group / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group"}')
    out = tmp_path / "q.arrow"
    query = "select count(*) as n, max(w) as hi, min(w) as lo from w where isfinite(w) and w > 0.5"
    result = subprocess.run([ZARO, "sql", str(group), query, "--out", str(out)],
                            capture_output=True, text=True, env=ENV)
    assert result.returncode == 0, result.stderr
    got = pa.ipc.open_file(out).read_all().to_pylist()[0]
    finite = want[np.isfinite(want) & (want > 0.5)]
    assert got["n"] == finite.size
    assert got["hi"] == finite.max() and got["lo"] == finite.min()
