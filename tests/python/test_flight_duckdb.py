"""Real clients against `./zaro serve` and `./zaro sql`: pyarrow.flight and duckdb.

Expected values come from tensorstore reading the same fixture, and from numpy.
"""
import json
import subprocess

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest
import tensorstore as ts

from zaro_server import ROOT, ZARO, Server

STORE = ROOT / "testdata" / "sharding" / "stores" / "end_zstd.zarr"


def tensorstore_read(store, index):
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(store)}}).result()
    return t[index].read().result()


@pytest.fixture(scope="module")
def server():
    with Server(STORE) as s:
        yield s.uri


def tensor(table):
    column = table.column(0).combine_chunks()
    return column.to_numpy_ndarray() if isinstance(column, pa.FixedShapeTensorArray) else column.to_numpy()


def test_list_flights(server):
    client = fl.connect(server)
    infos = list(client.list_flights())
    assert [i.descriptor.path for i in infos] == [[b"/"]]
    assert infos[0].total_records == 30
    assert isinstance(infos[0].schema.field(0).type, pa.FixedShapeTensorType)


@pytest.mark.parametrize("sl,index", [
    ("", np.s_[:, :]),
    ("3:27:4, 5:40", np.s_[3:27:4, 5:40]),
    ("29, :", np.s_[29, :]),
])
def test_every_endpoint_reassembles_to_tensorstore(server, sl, index):
    client = fl.connect(server)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(
        json.dumps({"array": "/", "slice": sl, "layout": "tensor"})))
    parts = [tensor(client.do_get(e.ticket).read_all()) for e in info.endpoints]
    got = np.concatenate(parts) if len(parts) > 1 else parts[0]
    want = tensorstore_read(STORE, index)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_duckdb_over_a_flight_table(server):
    client = fl.connect(server)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(
        json.dumps({"array": "/", "slice": "0:20, 10:30", "layout": "table"})))
    fetched = pa.concat_tables([client.do_get(e.ticket).read_all() for e in info.endpoints])
    got = duckdb.sql("select count(*), sum(data), avg(dim_0 * 100 + dim_1) from fetched where data > 100").fetchone()
    a = tensorstore_read(STORE, np.s_[0:20, 10:30]).astype(np.int64)
    i, j = np.meshgrid(np.arange(0, 20), np.arange(10, 30), indexing="ij")
    mask = a > 100
    assert got[0] == mask.sum()
    assert got[1] == a[mask].sum()
    assert got[2] == pytest.approx((i * 100 + j)[mask].mean())


def test_metadata_action_and_errors(server):
    client = fl.connect(server)
    meta = json.loads(list(client.do_action(fl.Action("metadata", b"/")))[0].body.to_pybytes())
    assert meta["shape"] == [30, 41] and meta["data_type"] == "int32"
    with pytest.raises(pa.ArrowKeyError, match="/nope"):
        client.get_flight_info(fl.FlightDescriptor.for_path("nope"))
    with pytest.raises(pa.ArrowInvalid, match="0:99"):
        client.get_flight_info(fl.FlightDescriptor.for_command(json.dumps({"array": "/", "slice": "0:99"})))


def test_zaro_sql_aggregate_equals_numpy(tmp_path):
    out = tmp_path / "r.arrow"
    subprocess.run([ZARO, "sql", str(STORE), "select dim_0, sum(data) s from data group by dim_0 order by dim_0",
                    "--out", str(out)], check=True, capture_output=True, text=True)
    table = pa.ipc.open_file(out).read_all()
    a = tensorstore_read(STORE, np.s_[:, :]).astype(np.int64)
    np.testing.assert_array_equal(table.column("s").to_numpy(), a.sum(axis=1))
    np.testing.assert_array_equal(table.column("dim_0").to_numpy(), np.arange(30))
