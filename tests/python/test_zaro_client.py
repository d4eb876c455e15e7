"""zaro_client (clients/python) and its xarray backend against a live `zaro serve`.

Expected values come from tensorstore and numpy (arrays, tables, SQL results), from xarray's
own CF decoding over tensorstore's values and zarr.json (the v3 sample: xr.open_zarr needs
zarr-python 3, which this environment lacks), and from xr.open_zarr run by Debian's xarray and
zarr-python 2 on the store they wrote (testdata/xarray_client, expected/ written by its
generator). Laziness is shown by the server's stats action (chunks_decoded).
"""
import json
import re
import sys
import threading

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest
import tensorstore as ts
import xarray as xr

import zaro_client
from test_flight_serving import TOKEN, certs, stall, tokens  # noqa: F401 (fixtures)
from zaro_server import ROOT, Server

sys.path.insert(0, str(ROOT / "testdata"))
from selection import to_index  # noqa: E402

SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"
CF = ROOT / "testdata" / "xarray_client" / "cf.zarr"
EXPECTED = ROOT / "testdata" / "xarray_client" / "expected"


def tensorstore_read(store, path):
    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(store / path)}}).result().read().result()


def sample_metadata():
    return json.loads((SAMPLE / "zarr.json").read_text())


@pytest.fixture(scope="module")
def sample():
    with Server(SAMPLE, "--sql") as s:
        yield s


@pytest.fixture(scope="module")
def client(sample):
    with zaro_client.connect(sample.uri) as c:
        yield c


@pytest.fixture(scope="module")
def cf_server():
    with Server(CF) as s:
        yield s


# ---- the client ------------------------------------------------------------------------------

def test_list_and_info_describe_the_hierarchy(client):
    arrays = sample_metadata()["consolidated_metadata"]["metadata"]
    nodes = client.list()
    assert nodes[0] == {"path": "/", "node_type": "group"}
    assert {n["path"].strip("/"): (n["shape"], n["data_type"]) for n in nodes[1:]} == \
        {k: (m["shape"], m["data_type"]) for k, m in arrays.items()}
    info = client.info("t2m")
    assert info["dimension_names"] == arrays["t2m"]["dimension_names"]
    assert info["attributes"] == arrays["t2m"]["attributes"]


@pytest.mark.parametrize("path", ["t2m", "precip", "time"])
@pytest.mark.parametrize("sel", [None, "0:24, :, :", "5, 10:20, ::7", "..., 3", "-3:, 1, -5:", "47, 72, 143",
                                 "3:3, :, :"])
def test_read_equals_tensorstore(client, path, sel):
    want = tensorstore_read(SAMPLE, path)
    if sel is not None and len(want.shape) == 1:
        sel = sel.split(",")[0]
    if sel == "...":
        sel = None
    got = client.read(path, sel)
    if sel and sel.startswith("...,"):  # testdata/selection.py has no '...'
        want = want[(Ellipsis,) + to_index(sel[4:], want.shape[-1:])]
    else:
        want = want[to_index(sel or "", want.shape)]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["zero_d_complex", "dtype_complex64", "dtype_bool", "dtype_float16", "zero_d"])
def test_read_types_and_ranks_equal_tensorstore(name):
    store = ROOT / "testdata" / "core" / "stores" / f"{name}.zarr"
    want = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(store)}}).result().read().result()
    with Server(store) as s, zaro_client.connect(s.uri) as c:
        got = c.read("/")
        part = c.read("/", "1:4, ::3") if want.ndim == 2 else None
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    if part is not None:
        np.testing.assert_array_equal(part, want[1:4, ::3])


def test_a_read_of_several_endpoints_is_reassembled_in_place(big):
    path, values = big
    sel = ":, 0:65, :"  # 272 MiB: more than one endpoint (256 MiB each at most)
    with Server(path) as s, zaro_client.connect(s.uri, threads=4) as c:
        raw = fl.connect(s.uri).get_flight_info(fl.FlightDescriptor.for_command(
            json.dumps({"array": "/", "slice": sel, "layout": "tensor"})))
        assert len(raw.endpoints) > 1
        got = c.read("/", sel)
    assert got.shape == (4096, 65, 256) and got.dtype == np.float32 and got.flags.c_contiguous
    np.testing.assert_array_equal(got[:256], values[:, 0:65, :])
    assert (got[256:] == np.float32(1.5)).all()  # the fill value where tensorstore wrote nothing


def fetch_threads():
    return {t for t in threading.enumerate() if t.name.startswith("zaro-fetch")}


def test_parallel_parts_reuse_the_clients_threads_until_it_closes(big):
    path, values = big
    with Server(path) as s:
        c = zaro_client.connect(s.uri, threads=4, shared_memory=False)
        c.part_bytes = 1 << 20  # 4 parts of 4 MiB each
        first = c.read("/", "0:256, 0:16, :")
        threads = fetch_threads()
        assert 1 < len(threads) <= 4
        second = c.read("/", "0:256, 16:32, :")
        assert fetch_threads() == threads  # the same threads, not new ones per read
        c.close()
        assert not any(t.is_alive() for t in threads)
    np.testing.assert_array_equal(first, values[:, 0:16, :])
    np.testing.assert_array_equal(second, values[:, 16:32, :])


def test_read_table_has_coordinates_cf_times_and_the_selected_columns(client):
    t2m = tensorstore_read(SAMPLE, "t2m")[0:2, 0:3, 4:6]
    hours = tensorstore_read(SAMPLE, "time")[0:2]
    lat = tensorstore_read(SAMPLE, "lat")[0:3]
    table = client.read_table("t2m", "0:2, 0:3, 4:6", columns=["t2m", "time", "lat"])
    assert table.column_names == ["t2m", "time", "lat"]
    tt, la, _ = np.meshgrid(hours, lat, np.arange(2), indexing="ij")
    np.testing.assert_array_equal(table.column("t2m").to_numpy(), t2m.reshape(-1))
    np.testing.assert_array_equal(table.column("lat").to_numpy(), la.reshape(-1))
    want_times = np.datetime64("2020-01-01T00:00", "us") + (tt.reshape(-1) * 3600e6).astype("timedelta64[us]")
    np.testing.assert_array_equal(table.column("time").to_numpy(), want_times)
    with pytest.raises(zaro_client.InvalidArgument, match=r"t2m: no column nope; the table has time, lat, lon, t2m"):
        client.read_table("t2m", "0:1", columns=["nope"])


def test_sql_runs_on_the_flight_sql_service(client, cf_server):
    t2m = tensorstore_read(SAMPLE, "t2m")
    lat = tensorstore_read(SAMPLE, "lat")
    got = client.sql("select count(*) as n, max(t2m) as hottest from t2m where lat between 30 and 60")
    inside = t2m[:, (lat >= 30) & (lat <= 60), :]
    assert got.column_names == ["n", "hottest"]
    assert got.column("n").to_pylist() == [inside.size]
    assert got.column("hottest").to_pylist() == [pytest.approx(float(inside.max()))]
    with pytest.raises(zaro_client.InvalidArgument, match=r"^select nope from t2m: .*nope"):
        client.sql("select nope from t2m")
    with pytest.raises(zaro_client.Unimplemented, match=r"zaro serve STORE --sql"):
        zaro_client.connect(cf_server.uri).sql("select 1")  # a server without --sql


# ---- errors ----------------------------------------------------------------------------------

def test_errors_are_typed_and_name_the_array(client):
    with pytest.raises(zaro_client.NotFound, match=r"^t2n: no array or group at '/t2n'") as e:
        client.read("t2n", "0:1")
    assert isinstance(e.value, zaro_client.ZaroError) and e.value.array == "t2n"
    with pytest.raises(zaro_client.NotFound, match=r"^nope: "):
        client.info("nope")
    with pytest.raises(zaro_client.InvalidArgument, match=r"^t2m: selection '0:99'.*stop 99 is out of range"):
        client.read("t2m", "0:99")
    with pytest.raises(zaro_client.InvalidArgument, match=r"^precip: .*'x' is not an integer"):
        client.read_table("precip", "x")


def test_a_full_server_raises_resource_exhausted(big):
    path, values = big
    with Server(path, "--max-streams", "1", "--queue-timeout", "1") as s, zaro_client.connect(s.uri) as c:
        held = stall(s.uri)
        with pytest.raises(zaro_client.ResourceExhausted, match=r"^/: .*--max-streams"):
            c.read("/", "0:16")
        held.cancel()
        np.testing.assert_array_equal(c.read("/", "0:16"), values[0:16])


def test_tls_and_bearer_tokens(certs, tokens):  # noqa: F811
    with Server(SAMPLE, "--tls-cert", certs / "server.pem", "--tls-key", certs / "server.key",
                "--auth-token-file", tokens) as s:
        assert s.uri.startswith("grpc+tls://")
        want = tensorstore_read(SAMPLE, "t2m")[0:2]
        for token, roots in [(TOKEN, certs / "ca.pem"), (TOKEN.decode(), (certs / "ca.pem").read_bytes())]:
            with zaro_client.connect(s.uri, token=token, tls_root_certs=roots) as c:
                np.testing.assert_array_equal(c.read("t2m", "0:2"), want)
        ds = xr.open_dataset(s.uri, engine="zaro", token=TOKEN, tls_root_certs=certs / "ca.pem")
        np.testing.assert_array_equal(ds.t2m[0:2].values, want)
        for token in [None, b"wrong-token"]:
            with zaro_client.connect(s.uri, token=token, tls_root_certs=certs / "ca.pem") as c:
                with pytest.raises(zaro_client.Unauthenticated, match=r"^t2m: "):
                    c.read("t2m", "0:2")
        with zaro_client.connect(s.uri, token=TOKEN, tls_root_certs=certs / "stranger.pem") as c:
            with pytest.raises(zaro_client.Unavailable):
                c.read("t2m", "0:2")


# ---- xarray ----------------------------------------------------------------------------------

def v3_open_zarr_reference(store):
    """What xr.open_zarr reads from the sample, without zarr-python: tensorstore's values, each
    array's dimension_names and attributes as zarr.json has them (for Zarr v3 the fill_value
    does not mask), then xarray's own CF decoding."""
    group = json.loads((store / "zarr.json").read_text())
    variables = {name: xr.Variable(meta["dimension_names"], tensorstore_read(store, name), meta["attributes"])
                 for name, meta in group["consolidated_metadata"]["metadata"].items()}
    return xr.decode_cf(xr.Dataset(variables, attrs=group["attributes"]))


def expected_dataset(name):
    """xr.open_zarr(cf.zarr, group=...) as the generator's xarray wrote it down (name.raw: with
    decode_cf=False)."""
    doc = json.loads((EXPECTED / f"{name}.json").read_text())
    coords, data = {}, {}
    for k, v in doc["variables"].items():
        values = np.load(EXPECTED / f"{name}.{k}.npy")
        assert str(values.dtype) == v["dtype"]
        (coords if v["coordinate"] else data)[k] = xr.Variable(v["dims"], values, v["attrs"])
    return xr.Dataset(data, coords, doc["attrs"])


def assert_same(got, want):
    xr.testing.assert_identical(got, want)
    for k in want.variables:
        assert got[k].dtype == want[k].dtype, k


def assert_open_zarr(uri, group, name):
    """The zaro backend against xr.open_zarr on the same store: what the store layer hands to CF
    decoding identical to open_zarr(decode_cf=False); decoded, identical to this xarray's
    decode_cf of that, and equal (within float32 precision, see the generator) to what the
    generator's xarray decoded."""
    raw = xr.open_dataset(uri, engine="zaro", group=group, decode_cf=False).load()
    want_raw = expected_dataset(name + ".raw")
    assert_same(raw, want_raw)
    got = xr.open_dataset(uri, engine="zaro", group=group).load()
    assert_same(got, xr.decode_cf(want_raw))
    old = expected_dataset(name)
    xr.testing.assert_allclose(got, old, rtol=1e-6)
    assert set(got.coords) == set(old.coords) and got.attrs == old.attrs
    for k in old.variables:
        assert got[k].attrs == old[k].attrs and got[k].dims == old[k].dims, k
    return got


def test_open_dataset_equals_open_zarr_on_the_sample(sample):
    ds = xr.open_dataset(sample.uri, engine="zaro")
    assert_same(ds.load(), v3_open_zarr_reference(SAMPLE))
    assert ds.time.dtype == np.dtype("datetime64[ns]") and ds.precip.dtype == np.float64


def test_open_dataset_equals_open_zarr_on_an_xarray_written_store(cf_server):
    ds = assert_open_zarr(cf_server.uri, None, "root")
    # the points of the fixture: CF times from 0, packed int16 with missing values, zeros of an
    # array without a fill value stay zeros, an auxiliary coordinate
    assert ds.time.values[0] == np.datetime64("2000-01-01")
    assert np.isnan(ds.temp.values[2, 3, :4]).all() and not np.isnan(ds.temp.values[2, 3, 4:]).any()
    assert (ds.flag.values[0] == 0).all() and ds.flag.dtype == np.int8
    assert "area" in ds.coords


def test_groups_and_open_datatree(cf_server):
    assert_open_zarr(cf_server.uri, "forecast", "forecast")
    assert_open_zarr(cf_server.uri, "/forecast/", "forecast")
    tree = xr.open_datatree(cf_server.uri, engine="zaro")
    assert sorted(tree.groups) == ["/", "/forecast"]
    assert_same(tree["/"].to_dataset().load(), xr.decode_cf(expected_dataset("root.raw")))
    # the child's lat equals its parent's, so the tree keeps it once (as for any backend)
    forecast = xr.decode_cf(expected_dataset("forecast.raw"))
    assert_same(tree["forecast"].to_dataset()[list(forecast.data_vars)].load(), forecast)
    sub = xr.open_datatree(cf_server.uri, engine="zaro", group="forecast")
    assert sorted(sub.groups) == ["/"]
    assert_same(sub.to_dataset().load(), xr.decode_cf(expected_dataset("forecast.raw")))


def inner_chunks(sel, shape, chunk):
    """Chunks of the grid `chunk` that the slices `sel` touch (by arithmetic, not by zaro)."""
    n = 1
    for s, size, c in zip(sel, shape, chunk):
        idx = np.arange(size)[s]
        n *= len(np.unique(idx // c))
    return n


def test_indexing_reads_only_the_chunks_of_the_selection():
    meta = sample_metadata()["consolidated_metadata"]["metadata"]
    with Server(SAMPLE) as s:  # its own server: nothing decoded or cached before
        c = zaro_client.connect(s.uri)
        before = c.stats()["chunks_decoded"]
        ds = xr.open_dataset(s.uri, engine="zaro", decode_times=False)
        opened = c.stats()["chunks_decoded"]
        # opening read the index coordinates (one chunk each), no data variable (decoding CF
        # times, xarray would also read the first and last time to infer its units)
        assert opened - before == 3
        sel = (slice(10, 14), slice(30, 40), slice(70, 75))
        got = ds.t2m[sel].values
        inner = meta["t2m"]["codecs"][0]["configuration"]["chunk_shape"]
        decoded = c.stats()["chunks_decoded"] - opened
        assert decoded == inner_chunks(sel, meta["t2m"]["shape"], inner) == 8
        np.testing.assert_array_equal(got, tensorstore_read(SAMPLE, "t2m")[sel])
        # a strided, partly negative selection: still only its chunks
        sel2 = (5, slice(None, None, 20), slice(-3, None))
        at = c.stats()["chunks_decoded"]
        np.testing.assert_array_equal(ds.t2m[sel2].values, tensorstore_read(SAMPLE, "t2m")[sel2])
        assert c.stats()["chunks_decoded"] - at == inner_chunks((slice(5, 6),) + sel2[1:], meta["t2m"]["shape"], inner)


def test_dask_chunks_follow_the_zarr_chunks(sample):
    ds = xr.open_dataset(sample.uri, engine="zaro", chunks={})
    meta = sample_metadata()["consolidated_metadata"]["metadata"]["t2m"]
    chunk = meta["chunk_grid"]["configuration"]["chunk_shape"]
    assert ds.t2m.encoding["preferred_chunks"] == dict(zip(meta["dimension_names"], chunk))
    assert ds.t2m.chunks == tuple(tuple(min(c, n - i) for i in range(0, n, c)) for c, n in zip(chunk, meta["shape"]))
    assert ds.t2m.data.numblocks == (4, 1, 1)
    np.testing.assert_array_equal(ds.t2m.values, tensorstore_read(SAMPLE, "t2m"))


# ---- docs/python.md ----------------------------------------------------------------------------

def readme_snippets():
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split("## zaro_client and xarray", 1)[1].split("\n#", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_snippets_run_as_written(sample):
    snippets = readme_snippets()
    assert snippets
    for code in snippets:
        exec(compile(code.replace("8815", str(sample.port)), "docs/python.md", "exec"), {})
