"""The xarray backend (engine="zaro") and zaro_client reads on an ERA5-like store written by xarray:
values, dtypes, attributes and encodings as xr.open_zarr gives them, opening in one round trip,
outer and vectorized indexing sent to the server as index lists, and CF decoding on request.

Expected values: xr.open_zarr run by Debian's xarray and zarr-python 2.13 on the store they wrote
(testdata/xarray_client/generate_era5.py wrote era5.zarr and expected/era5.*), and numpy indexing
of those arrays. Nothing expected here is produced by zaro.
"""
import json
import os
import shutil
import time
from urllib.request import urlopen

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest
import xarray as xr

import zaro_client
from zaro_server import ROOT, Server

STORE = ROOT / "testdata" / "xarray_client" / "era5.zarr"
EXPECTED = ROOT / "testdata" / "xarray_client" / "expected"


def expected_dataset(name):
    """The dataset xr.open_zarr gave (name "era5", or "era5.raw" for decode_cf=False)."""
    doc = json.loads((EXPECTED / f"{name}.json").read_text())
    variables, coords = {}, {}
    for k, v in doc["variables"].items():
        if v["dtype"] == "object":
            values = np.array(json.loads((EXPECTED / f"{name}.{k}.json").read_text()), dtype=object)
        else:
            values = np.load(EXPECTED / f"{name}.{k}.npy")
        attrs = {a: (np.nan if x == "NaN" else x) for a, x in v["attrs"].items()}
        var = xr.Variable(v["dims"], values, attrs)
        (coords if v["coordinate"] else variables)[k] = var
    return xr.Dataset(variables, coords=coords, attrs=doc["attrs"]), doc


@pytest.fixture(scope="module")
def server():
    with Server(STORE, "--http-port", "0") as s:
        yield s


@pytest.fixture(scope="module")
def client(server):
    with zaro_client.connect(server.uri) as c:
        yield c


def assert_like_open_zarr(got, want, doc):
    assert set(got.variables) == set(want.variables)
    assert set(got.coords) == set(want.coords)
    assert got.attrs == want.attrs
    for k, w in want.variables.items():
        g = got[k]
        assert g.dims == w.dims, k
        assert g.dtype == w.dtype, (k, g.dtype, w.dtype)
        np.testing.assert_array_equal(g.values, w.values, err_msg=k)
        assert g.attrs.keys() == w.attrs.keys(), k
        for a in w.attrs:
            np.testing.assert_equal(g.attrs[a], w.attrs[a], err_msg=f"{k}.{a}")
        for e, value in doc["variables"][k]["encoding"].items():
            got_value = g.encoding.get(e)
            got_value = str(got_value) if isinstance(got_value, np.dtype) else got_value
            np.testing.assert_equal(got_value, np.nan if value == "NaN" else value, err_msg=f"{k} encoding {e}")


def test_open_dataset_equals_open_zarr(server):
    old, doc = expected_dataset("era5")
    raw, _ = expected_dataset("era5.raw")
    got = xr.open_dataset(server.uri, engine="zaro").load()
    # Debian's xarray 2023.01 unpacks int16 to float32 where this one gives float64: the exact
    # reference is this xarray's decoding of what open_zarr read raw; the old one's values agree
    # within float32 precision, and its encodings are the reference
    assert_like_open_zarr(got, xr.decode_cf(raw), doc)
    xr.testing.assert_allclose(got, old, rtol=1e-6)
    # the points of the fixture: fixed-width strings as numpy's fixed-width dtypes, a
    # variable-length one as objects (as zarr-python gives them), packed int16 unpacked with its
    # fills as NaN, CF times
    assert got.sector.dtype == np.dtype("<U5") and got.expver.dtype == np.dtype("<U4")
    assert got.station.dtype == object and got.station.values[0] == "Tromsø"
    assert np.isnan(got.msl.values[0, 0, 0]) and got.msl.encoding["dtype"] == np.int16
    assert got.time.values[0] == np.datetime64("2020-01-01T00:00")


def test_open_dataset_without_cf_decoding_equals_open_zarr(server):
    want, doc = expected_dataset("era5.raw")
    assert_like_open_zarr(xr.open_dataset(server.uri, engine="zaro", decode_cf=False).load(), want, doc)


@pytest.mark.parametrize("options", [{"mask_and_scale": False}, {"decode_times": False},
                                     {"drop_variables": ["msl", "station"]}])
def test_decoding_options_as_xarray_applies_them(server, options):
    raw, _ = expected_dataset("era5.raw")
    want = xr.decode_cf(raw, **options)
    got = xr.open_dataset(server.uri, engine="zaro", **options).load()
    xr.testing.assert_identical(got, want)


class CountingFlight:
    """A Flight client that counts the calls made through it."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def __getattr__(self, name):
        attr = getattr(self.inner, name)
        if callable(attr):
            def call(*args, **kwargs):
                self.calls.append(name)
                return attr(*args, **kwargs)
            return call
        return attr


def test_opening_is_one_round_trip(server):
    with zaro_client.connect(server.uri) as c:
        c._flight = CountingFlight(c._flight)
        ds = xr.open_dataset(c, engine="zaro")
        # the index coordinates and the small 1-D arrays came with the description
        assert ds.latitude.values[0] == 90.0 and ds.expver.values[-1] == "0005"
        assert c._flight.calls == ["do_action"]
        ds.t2m[0, 0, 0].values  # the data variables stay on the server until indexed
        # a read this small goes by do_get (below client.shared_min_bytes) ...
        assert c._flight.calls == ["do_action", "do_get"]
        # ... a larger one from a server on this machine comes in shared memory (do_exchange)
        c.shared_min_bytes = 0
        ds.t2m[0, 0, 1].values
        assert c._flight.calls == ["do_action", "do_get", "do_exchange"]
        c.shared_memory = False
        ds.t2m[0, 0, 2].values
        assert c._flight.calls == ["do_action", "do_get", "do_exchange", "do_get"]


def test_datatree_is_one_round_trip(server):
    with zaro_client.connect(server.uri) as c:
        c._flight = CountingFlight(c._flight)
        tree = xr.open_datatree(c, engine="zaro")
        assert list(tree.groups) == ["/"] and "t2m" in tree.to_dataset()
        assert c._flight.calls == ["do_action"]


def test_read_decode_equals_xarray(client):
    raw, _ = expected_dataset("era5.raw")
    want = xr.decode_cf(raw)
    np.testing.assert_array_equal(client.read("msl", "0:5, :, :", decode=True), want.msl.values[0:5])
    np.testing.assert_array_equal(client.read("time", decode=True), want.time.values)
    np.testing.assert_array_equal(client.read("t2m", "3, 2, :", decode=True), want.t2m.values[3, 2, :])
    # the default stays raw: packed integers with their fill, time as hour counts
    np.testing.assert_array_equal(client.read("msl", "0:5, :, :"), raw.msl.values[0:5])
    np.testing.assert_array_equal(client.read("time"), raw.time.values)
    assert client.read("expver").dtype == np.dtype("<U4")
    assert client.read("msl", "0, 0, 0:2", decode=True).dtype == want.msl.dtype


def test_tensor_layout_carries_the_zarr_attributes(server):
    attrs = json.loads((STORE / "msl" / ".zattrs").read_text())
    info = fl.connect(server.uri).get_flight_info(fl.FlightDescriptor.for_path("msl"))
    assert json.loads(info.schema.field(0).metadata[b"zarr.attributes"]) == attrs
    with pa.ipc.open_stream(urlopen(server.http + "/arrays/msl?slice=0:2")) as reader:
        assert json.loads(reader.schema.field(0).metadata[b"zarr.attributes"]) == attrs


def test_describe_over_http(server):
    doc = json.loads(urlopen(server.http + "/describe/").read())
    arrays = {a["path"]: a for a in doc["arrays"]}
    raw, _ = expected_dataset("era5.raw")
    assert arrays["/time"]["inline"] and arrays["/time"]["values"] == raw.time.values.tolist()
    assert arrays["/sector"]["values"] == raw.sector.values.tolist()
    assert not arrays["/t2m"]["inline"] and "values" not in arrays["/t2m"]
    assert arrays["/t2m"]["attributes"]["units"] == "K"


def test_describe_answers_are_kept_until_a_coordinate_chunk_changes(tmp_path):
    """A second open is answered from the server's describe cache; a coordinate chunk touched or
    deleted since makes the answer be made anew, never the kept values."""
    store = tmp_path / "era5.zarr"
    shutil.copytree(STORE, store)
    past = time.time() - 3600  # files written in the last seconds have no version: not kept
    for f in store.rglob("*"):
        os.utime(f, (past, past))
    _, doc = expected_dataset("era5")
    raw, _ = expected_dataset("era5.raw")
    with Server(store, "--http-port", "0") as s, zaro_client.connect(s.uri) as c:
        for _ in range(2):  # as test_open_dataset_equals_open_zarr checks it
            assert_like_open_zarr(xr.open_dataset(c, engine="zaro").load(), xr.decode_cf(raw), doc)
        assert c.stats()["describe_cache_hits"] == 1
        for _ in range(2):
            doc_http = json.loads(urlopen(s.http + "/describe/").read())
        assert c.stats()["describe_cache_hits"] == 2
        assert {a["path"]: a for a in doc_http["arrays"]}["/latitude"]["values"] == raw.latitude.values.tolist()

        os.utime(store / "latitude" / "0", (past + 1, past + 1))  # touched: made anew, same values
        _, tables = c.describe()
        assert c.stats()["describe_cache_hits"] == 2
        np.testing.assert_array_equal(tables["latitude"].column(0).to_numpy(), raw.latitude.values)
        c.describe()
        assert c.stats()["describe_cache_hits"] == 3

        (store / "latitude" / "0").unlink()  # deleted: the fill value (NaN), not the kept values
        fill = json.loads((store / "latitude" / ".zarray").read_text())["fill_value"]
        assert fill == "NaN"
        for _ in range(2):
            _, tables = c.describe()
            assert np.isnan(tables["latitude"].column(0).to_numpy()).all()
        assert c.stats()["describe_cache_hits"] == 3  # a missing chunk has no version: not kept
