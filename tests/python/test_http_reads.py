"""zaro_client's reads through the server's HTTP door (`connect(..., http=URL)`): values equal
to tensorstore's for every fixed-width type, rank and selection; booleans, strings and reads under
`http_min_bytes` over Flight; the same token and TLS as Flight; and a stream this reader cannot place exactly (cut
short, compressed, with nulls, too long) refused naming the array, never returned in part."""
import http.server
import io
import sys
import threading

import numpy as np
import pyarrow as pa
import pytest
import tensorstore as ts

import zaro_client
from test_flight_serving import STORE, TOKEN, certs, expected, tokens  # noqa: F401 - fixtures
from zaro_client import errors, xarray_backend
from zaro_client.http_reads import HttpDoor
from zaro_server import ROOT, Server

sys.path.insert(0, str(ROOT / "testdata"))
from selection import to_index  # noqa: E402

STORES = ROOT / "testdata" / "core" / "stores"
SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"
CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens on loopback here


def tensorstore_read(store, path=""):
    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(store / path)}}).result().read().result()


def door_client(server, http, **kw):
    c = zaro_client.connect(server.uri, shared_memory=False, http=http, **kw)
    assert c.http_min_bytes == 0  # every read of numbers through the door, however small
    return c


@pytest.mark.parametrize("name", ["dtype_int8", "dtype_uint16", "dtype_int32", "dtype_uint64", "dtype_float16",
                                  "dtype_float32", "dtype_float64", "dtype_complex64", "dtype_complex128",
                                  "big_endian_int64", "big_endian_complex64", "zero_d", "zero_d_complex", "one_d",
                                  "transpose_3d"])
def test_values_equal_tensorstore(name):
    store = STORES / f"{name}.zarr"
    want = tensorstore_read(store)
    with Server(store, "--http-port", "0") as s, door_client(s, s.http) as c:
        got = c.read("/")
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        if want.ndim >= 2:
            np.testing.assert_array_equal(c.read("/", "1:4, ::3"), want[1:4, ::3])
            np.testing.assert_array_equal(c.read("/", "[2,0], 1"), want[[2, 0], 1])
        # the same client with its door closed fails: the values above came through it
        c._http = HttpDoor(CLOSED)
        with pytest.raises(errors.Unavailable, match="127.0.0.1:9"):
            c.read("/")


CASES = [(p, sel) for p in ["t2m", "precip"] for sel in [None, "0:24, :, :", "5, 10:20, ::7", "-3:, 1, -5:",
                                                        "47, 72, 143", "[0,5,47], :, [3,0]"]]
CASES += [("time", None), ("time", "5:40:3"), ("time", "[0,5,47]")]


@pytest.mark.parametrize("path, sel", CASES)
def test_selections_of_the_sample_equal_tensorstore(sample_door, path, sel):
    want = tensorstore_read(SAMPLE, path)
    got = sample_door.read(path, sel)
    if sel == "[0,5,47], :, [3,0]":
        want = want[np.ix_([0, 5, 47], np.arange(want.shape[1]), [3, 0])]
    elif sel == "[0,5,47]":
        want = want[[0, 5, 47]]
    else:
        want = want[to_index(sel or "", want.shape)]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.fixture(scope="module")
def sample_door():
    with Server(SAMPLE, "--http-port", "0") as s, door_client(s, s.http) as c:
        yield c


def test_xarray_opens_with_the_door():
    import xarray as xr

    with Server(SAMPLE, "--http-port", "0") as s:
        want = xr.open_dataset(s.uri, engine="zaro").load()
        got = xr.open_dataset(s.uri, engine="zaro", http=s.http).load()
        xr.testing.assert_identical(got, want)
        closed = xr.open_dataset(s.uri, engine="zaro", http=CLOSED)
        client = xarray_backend._CLIENTS[(s.uri, None, None, CLOSED)]  # the backend's, for this door
        client.shared_memory = False  # on this machine the server's file would come first
        with pytest.raises(errors.Unavailable, match="127.0.0.1:9"):
            closed.t2m.values  # 2 MB: through the door
        with zaro_client.connect(s.uri) as c, pytest.raises(ValueError, match="connect"):
            xr.open_dataset(c, engine="zaro", http=s.http)


def test_booleans_strings_and_reads_under_http_min_bytes_stay_on_flight():
    store = STORES / "dtype_bool.zarr"
    with Server(store) as s, door_client(s, CLOSED) as c:
        np.testing.assert_array_equal(c.read("/"), tensorstore_read(store))  # bits: Flight's path
    with Server(SAMPLE) as s, zaro_client.connect(s.uri, shared_memory=False, http=CLOSED) as c:
        with pytest.raises(zaro_client.Unavailable, match="127.0.0.1:9"):
            c.read("t2m", "0:2, :, :")  # numbers, however few: through the (closed) door
        c.http_min_bytes = 1 << 20
        np.testing.assert_array_equal(c.read("t2m", "0:2, :, :"), tensorstore_read(SAMPLE, "t2m")[0:2])


def test_tls_and_bearer_tokens(certs, tokens):  # noqa: F811 - the imported fixtures
    with Server(STORE, "--tls-cert", certs / "server.pem", "--tls-key", certs / "server.key",
                "--auth-token-file", tokens, "--http-port", "0") as s:
        assert s.http.startswith("https://")
        ca = (certs / "ca.pem").read_bytes()
        with door_client(s, s.http, token=TOKEN, tls_root_certs=ca) as c:
            np.testing.assert_array_equal(c.read("/"), expected())
            c._http._headers["Authorization"] = "Bearer wrong"  # Flight still has the right one
            with pytest.raises(errors.Unauthenticated):
                c.read("/")


class _Canned(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self):  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.apache.arrow.stream")
        self.send_header("Content-Length", str(len(self.body)))  # may promise more than it sends
        self.end_headers()
        self.wfile.write(self.body[:self.server.cut])
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args):
        pass


def canned(body, cut=None, keep_alive_then_close=False):
    """A door that answers every GET with `body` (its first `cut` bytes, then hangs up). With
    keep_alive_then_close, it answers in HTTP/1.1 without "Connection: close" and still closes the
    connection, as a server's idle timeout does between two requests."""
    attrs = {"body": body, **({"protocol_version": "HTTP/1.1"} if keep_alive_then_close else {})}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("H", (_Canned,), attrs))
    server.cut = len(body) if cut is None else cut
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def tensor_stream(values, rows_shape, **options):
    storage = pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1)), int(np.prod(rows_shape)))
    column = pa.ExtensionArray.from_storage(pa.fixed_shape_tensor(storage.type.value_type, rows_shape), storage)
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, pa.schema([("v", column.type)]), options=pa.ipc.IpcWriteOptions(**options)) as w:
        w.write_batch(pa.record_batch([column], names=["v"]))
    return sink.getvalue()


META = {"data_type": "float32"}


def door_read(body, logical, cut=None):
    server = canned(body, cut)
    try:
        door = HttpDoor(f"http://127.0.0.1:{server.server_address[1]}")
        try:
            return door.read("v", "", META, logical)
        finally:
            door.close()
    finally:
        server.shutdown()
        server.server_close()


def test_a_stream_it_can_place_is_placed():
    values = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    np.testing.assert_array_equal(door_read(tensor_stream(values, [2, 3]), (4, 2, 3)), values)


def test_a_connection_the_server_closed_while_idle_is_replaced():
    values = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    server = canned(tensor_stream(values, [2, 3]), keep_alive_then_close=True)
    door = HttpDoor(f"http://127.0.0.1:{server.server_address[1]}")
    try:
        for _ in range(3):  # the 2nd and 3rd GETs find the kept connection closed
            np.testing.assert_array_equal(door.read("v", "", META, (4, 2, 3)), values)
        assert len(door._idle) == 1
    finally:
        door.close()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("case, words", [
    ("cut", "ended|broke off"), ("compressed", "compressed"), ("nulls", "nulls"), ("longer", "does not fit"),
    ("shorter", "rows of the selection's"), ("empty", "ended")])
def test_a_stream_it_cannot_place_is_refused(case, words):
    values = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    body, logical, cut = tensor_stream(values, [2, 3]), (4, 2, 3), None
    if case == "cut":
        cut = len(body) - 40  # inside the values
    elif case == "compressed":
        body = tensor_stream(values, [2, 3], compression="lz4")
    elif case == "nulls":
        storage = pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1)), 6)
        storage = pa.FixedSizeListArray.from_arrays(storage.values, 6, mask=pa.array([False, True, False, False]))
        column = pa.ExtensionArray.from_storage(pa.fixed_shape_tensor(pa.float32(), [2, 3]), storage)
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, pa.schema([("v", column.type)])) as w:
            w.write_batch(pa.record_batch([column], names=["v"]))
        body = sink.getvalue()
    elif case == "longer":
        logical = (3, 2, 3)
    elif case == "shorter":
        logical = (5, 2, 3)
    elif case == "empty":
        body = b""
    with pytest.raises(errors.Internal, match=words) as e:
        door_read(body, logical, cut)
    assert str(e.value).startswith("v: the HTTP stream")
