"""Index lists in the selection (numpy's outer indexing, `np.ix_`) through `./zaro serve`: Flight
do_get and HTTP `?slice=` in both layouts give numpy's `a[np.ix_(...)]` of tensorstore's read
(and tensorstore's own `oindex`), the server decodes only the inner chunks that hold a listed
index, and the stream carries only the selected elements (`stats`: `chunks_decoded`,
`stream_body_bytes`)."""
import json
import pathlib
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest
import tensorstore as ts

from zaro_server import Server

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "testdata"))
from selection import outer, to_index  # noqa: E402  (testdata/selection.py)

SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"
# t2m: float32 [48, 73, 144], shards [12, 74, 144] of inner chunks [12, 37, 72], NaN fill
SLICES = ["[47,0,13], [72,0], [143,5,6]", "[5,-1,5], :, 100", "3, [36,37], [0,71,72,143]",
          "[], [1], :", "[40,41,40], ..."]


@pytest.fixture(scope="module")
def served():
    with Server(SAMPLE, "--http-port", "0") as s:
        yield s


@pytest.fixture(scope="module")
def t2m():
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / "t2m")}}).result()
    return t


def numpy_outer(t, sel):
    """numpy's a[np.ix_(...)] of tensorstore's whole read, checked against tensorstore's oindex."""
    index = to_index(sel, t.shape)
    want = outer(t.read().result(), index)
    if want.size:
        got = t.oindex[tuple(np.asarray(x, dtype=np.int64) if isinstance(x, list) else x
                             for x in index)].read().result()
        np.testing.assert_array_equal(got, want)
    return want


def tensor(table):
    column = table.column(0).combine_chunks()
    if isinstance(column, pa.FixedShapeTensorArray):
        return column.to_numpy_ndarray()
    return column.to_numpy(zero_copy_only=False)


def flight(s, command):
    client = fl.connect(s.uri)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(json.dumps(command)))
    tables = [client.do_get(e.ticket).read_all() for e in info.endpoints]
    return info, pa.concat_tables(tables) if tables else None


def http(s, **query):
    with urllib.request.urlopen(f"{s.http}/arrays/t2m?" + urllib.parse.urlencode(query)) as r:
        assert r.status == 200
        return pa.ipc.open_stream(r).read_all()


def stats(s):
    return s.stats(fl.connect(s.uri))


@pytest.mark.parametrize("sel", SLICES)
def test_tensor_layout_equals_numpy_outer_indexing(served, t2m, sel):
    want = numpy_outer(t2m, sel)
    info, got = flight(served, {"array": "t2m", "slice": sel})
    assert info.total_records == (want.shape[0] if want.ndim else 1)
    if want.size:
        np.testing.assert_array_equal(tensor(got).reshape(want.shape), want)
        np.testing.assert_array_equal(tensor(http(served, slice=sel)).reshape(want.shape), want)
    else:
        assert got is None or got.num_rows == 0


@pytest.mark.parametrize("sel", SLICES[:3])
def test_table_layout_gives_the_listed_coordinates(served, t2m, sel):
    want = numpy_outer(t2m, sel)
    index = to_index(sel, t2m.shape) + (slice(None),) * 3
    coords = {}
    for d, name in enumerate(["time", "lat", "lon"]):
        if isinstance(index[d], int):
            continue  # a dropped dimension has no column
        full = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / name)}}
                       ).result().read().result()
        coords[name] = outer(full, (index[d],))
    for table in (flight(served, {"array": "t2m", "slice": sel, "layout": "table", "raw": True})[1],
                  http(served, slice=sel, layout="table", raw="true")):
        assert table.column_names == [*coords, "t2m"]
        assert table.num_rows == want.size
        np.testing.assert_array_equal(table.column("t2m").to_numpy(zero_copy_only=False), want.ravel())
        grids = np.meshgrid(*coords.values(), indexing="ij")
        for name, grid in zip(coords, grids):
            np.testing.assert_array_equal(table.column(name).to_numpy(), grid.ravel())


def inner_chunks_holding(index, shape, inner):
    """How many inner chunks hold an element of the outer selection: per dimension the distinct
    inner chunks of its indices, multiplied."""
    n = 1
    for x, size, c in zip(index + (slice(None),) * (len(shape) - len(index)), shape, inner):
        indices = np.arange(size)[x] if isinstance(x, slice) else np.atleast_1d(x)
        n *= len(set((np.asarray(indices) // c).tolist()))
    return n


def test_only_the_chunks_holding_the_indices_are_decoded_and_only_their_values_sent(served, t2m):
    sel = "[47,0,13], [72,0], [143,5,6]"
    inner = json.loads((SAMPLE / "t2m" / "zarr.json").read_text())["codecs"][0]["configuration"]["chunk_shape"]
    index = to_index(sel, t2m.shape)
    want = numpy_outer(t2m, sel)
    before = stats(served)
    np.testing.assert_array_equal(tensor(flight(served, {"array": "t2m", "slice": sel})[1]), want)
    after = stats(served)
    decoded = after["chunks_decoded"] - before["chunks_decoded"]
    sent = after["stream_body_bytes"] - before["stream_body_bytes"]
    # time 47, 0, 13 in inner chunks 3, 0, 1; lat 72, 0 in 1, 0; lon 143, 5, 6 in 1, 0: 12 of 32
    holding = inner_chunks_holding(index, t2m.shape, inner)
    assert holding == 12
    assert decoded == holding
    assert want.nbytes <= sent < want.nbytes + 2048
    # the bounding box (what xarray asks for without outer indexing)
    box = "0:48, 0:73, 5:144"
    before = stats(served)
    flight(served, {"array": "t2m", "slice": box})
    after = stats(served)
    assert after["chunks_decoded"] - before["chunks_decoded"] == 4 * 2 * 2
    assert after["stream_body_bytes"] - before["stream_body_bytes"] >= 48 * 73 * 139 * 4
    print(f"list: {decoded} inner chunks, {sent} bytes sent; bounding box: "
          f"{after['chunks_decoded'] - before['chunks_decoded']} inner chunks, "
          f"{after['stream_body_bytes'] - before['stream_body_bytes']} bytes")


def test_bad_lists_are_invalid_argument_naming_the_dimension(served):
    """Flight INVALID_ARGUMENT, HTTP 400, both naming the dimension and the index."""
    client = fl.connect(served.uri)
    with pytest.raises(pa.ArrowInvalid) as e:
        client.get_flight_info(fl.FlightDescriptor.for_command(
            json.dumps({"array": "t2m", "slice": "[0,48], :"})))
    assert "dimension 0" in str(e.value) and "index 48" in str(e.value)
    with pytest.raises(urllib.error.HTTPError) as h:
        http(served, slice=":, [1,-74]")
    assert h.value.code == 400
    body = json.loads(h.value.read())
    assert "dimension 1" in body["message"] and "index -74" in body["message"]


@pytest.mark.parametrize("layout", ["tensor", "table"])
def test_cli_read_takes_index_lists(tmp_path, t2m, layout):
    """`zaro read --slice "[0,2], :, [1,3]"` in both layouts: numpy's a[np.ix_(...)]; the table's
    dimension columns are the listed coordinates (raw: CF off, so time is its stored value)."""
    sel = "[0,2], :, [1,3]"
    out = tmp_path / "out.arrow"
    result = subprocess.run([str(ROOT / "zaro"), "read", str(SAMPLE), "t2m", "--slice", sel, "--layout", layout,
                             "--raw", "--out", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    table = pa.ipc.open_file(out).read_all()
    want = numpy_outer(t2m, sel)
    if layout == "tensor":
        np.testing.assert_array_equal(tensor(table), want)
        return
    np.testing.assert_array_equal(table.column("t2m").to_numpy(), want.ravel())
    coords = [outer(ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / n)}})
                    .result().read().result(), (x,))
              for n, x in zip(["time", "lat", "lon"], to_index(sel, t2m.shape))]
    for name, grid in zip(["time", "lat", "lon"], np.meshgrid(*coords, indexing="ij")):
        np.testing.assert_array_equal(table.column(name).to_numpy(), grid.ravel())
