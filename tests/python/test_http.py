"""Arrow IPC over HTTP (`zaro serve --http-port`): the same arrays as Flight, as
application/vnd.apache.arrow.stream responses that pyarrow, DuckDB (through pyarrow) and curl read;
values equal to Flight's and to tensorstore's for both layouts; JSON errors with HTTP statuses;
bearer tokens and TLS as Flight has them; IPC buffer compression on request. The README's HTTP
client snippets for Python and curl are the ones run here."""
import json
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest

from test_flight_serving import STORE, TOKEN, certs, expected, tokens  # noqa: F401 - fixtures
from zaro_server import Server


@pytest.fixture(scope="module")
def served():
    with Server(STORE, "--http-port", "0") as s:
        yield s


def get(url, headers=None, context=None):
    return urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), context=context)


def http_table(s, query="", path=""):
    with get(f"{s.http}/arrays/{path}{query}") as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("application/vnd.apache.arrow.stream")
        assert r.headers["Transfer-Encoding"] == "chunked"
        return pa.ipc.open_stream(r).read_all()


def flight_table(s, command):
    client = fl.connect(s.uri)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(json.dumps(command)))
    return pa.concat_tables([client.do_get(e.ticket).read_all() for e in info.endpoints])


def error(url, **kw):
    with pytest.raises(urllib.error.HTTPError) as e:
        get(url, **kw).read()
    body = json.loads(e.value.read())
    assert e.value.headers["Content-Type"] == "application/json"
    return e.value.code, body


@pytest.mark.parametrize("slice_", ["", "3:27:4, 5:40", "7", "-5:, ::3"])
def test_tensor_layout_equals_flight_and_tensorstore(served, slice_):
    q = "?" + urllib.parse.urlencode({"slice": slice_}) if slice_ else ""
    got = http_table(served, q)
    want = flight_table(served, {"array": "/", "slice": slice_})
    assert got.schema == want.schema
    assert got.equals(want)
    if slice_ == "":
        values = got.column(0).combine_chunks().to_numpy_ndarray()
        np.testing.assert_array_equal(values, expected())


def test_table_layout_and_columns_equal_flight(served):
    query = {"slice": "28:30, 30:41", "layout": "table"}
    got = http_table(served, "?" + urllib.parse.urlencode(query))
    want = flight_table(served, {"array": "/", **query})
    assert got.num_rows == 22 and got.equals(want)
    names = got.column_names
    some = [names[0], names[-1]]
    part = http_table(served, "?" + urllib.parse.urlencode({**query, "columns": ",".join(some)}))
    assert part.equals(got.select(some))
    assert part.equals(flight_table(served, {"array": "/", **query, "columns": some}))


@pytest.mark.parametrize("codec", ["zstd", "lz4"])
def test_compressed_streams_equal_values_in_fewer_bytes(served, codec):
    with get(f"{served.http}/arrays/") as r:
        plain = r.read()
    with get(f"{served.http}/arrays/?compression={codec}") as r:
        assert r.headers["Content-Type"] == f"application/vnd.apache.arrow.stream; codecs={codec}"
        packed = r.read()
    assert len(packed) < len(plain), (codec, len(packed), len(plain))
    assert pa.ipc.open_stream(packed).read_all().equals(pa.ipc.open_stream(plain).read_all())


def test_hierarchy_and_metadata_json(served):
    with get(served.http + "/") as r:
        assert r.headers["Content-Type"] == "application/json"
        nodes = json.loads(r.read())["nodes"]
    assert [(n["path"], n["shape"]) for n in nodes if n["node_type"] == "array"] == [("/", [30, 41])]
    with get(served.http + "/arrays/metadata") as r:
        meta = json.loads(r.read())
    assert meta["shape"] == [30, 41] and meta["data_type"] == "int32"


@pytest.mark.parametrize("path,status,kind,words", [
    ("/arrays/nope", 404, "NOT_FOUND", "nope"),
    ("/arrays/nope/metadata", 404, "NOT_FOUND", "nope"),
    ("/elsewhere", 404, "NOT_FOUND", "/arrays/"),
    ("/arrays/?slice=0:99", 400, "INVALID_ARGUMENT", "0:99"),
    ("/arrays/?slice=a:b", 400, "INVALID_ARGUMENT", "a:b"),
    ("/arrays/?layout=cube", 400, "INVALID_ARGUMENT", "cube"),
    ("/arrays/?compression=gzip", 400, "INVALID_ARGUMENT", "gzip"),
    ("/arrays/?colour=red", 400, "INVALID_ARGUMENT", "colour"),
    ("/arrays/?slice=1&slice=2", 400, "INVALID_ARGUMENT", "slice"),
    ("/arrays/?columns=dim_0", 400, "INVALID_ARGUMENT", "table"),
    ("/arrays/?layout=table&columns=nope", 400, "INVALID_ARGUMENT", "nope"),
    ("/arrays/?raw=maybe", 400, "INVALID_ARGUMENT", "maybe"),
])
def test_bad_paths_slices_and_options_are_4xx_json(served, path, status, kind, words):
    code, body = error(served.http + path)
    assert (code, body["error"]) == (status, kind), body
    assert words in body["message"], body
    # the connection stays usable, and nothing is held
    assert json.loads(get(served.http + "/stats").read())["allocated_bytes"] == 0


def test_only_get_is_served(served):
    req = urllib.request.Request(served.http + "/arrays/", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req)
    assert e.value.code == 405 and e.value.headers["Allow"] == "GET"


def test_readme_python_snippets(served):
    url = served.http
    # docs/serving.md, "Arrow Flight": pyarrow
    import pyarrow as pa
    import urllib.request
    tensor = pa.ipc.open_stream(urllib.request.urlopen(f"{url}/arrays/?slice=0:10")).read_all()
    assert tensor.num_rows == 10
    # DuckDB, through pyarrow
    import duckdb
    rows = pa.ipc.open_stream(urllib.request.urlopen(f"{url}/arrays/?layout=table&slice=0:2")).read_all()
    assert duckdb.sql("SELECT count(*), sum(data) FROM rows").fetchone() == (82, int(expected()[0:2].sum()))


def test_readme_curl_snippet(served, tmp_path):
    out = tmp_path / "t.arrows"
    subprocess.run(["curl", "-sSf", "-o", str(out), f"{served.http}/arrays/?slice=0:10&compression=zstd"],
                   check=True)
    table = pa.ipc.open_stream(out.read_bytes()).read_all()
    np.testing.assert_array_equal(table.column(0).combine_chunks().to_numpy_ndarray(), expected()[0:10])
    # errors come back as JSON with the status
    r = subprocess.run(["curl", "-sS", "-w", "%{http_code}", f"{served.http}/arrays/nope"],
                       capture_output=True, text=True)
    assert r.stdout.endswith("404") and '"error":"NOT_FOUND"' in r.stdout


@pytest.fixture(scope="module")
def tls_http(certs, tokens):  # noqa: F811 - the imported fixtures
    with Server(STORE, "--tls-cert", certs / "server.pem", "--tls-key", certs / "server.key",
                "--auth-token-file", tokens, "--http-port", "0") as s:
        yield s


def test_tls_and_bearer_tokens(tls_http, certs):  # noqa: F811
    assert tls_http.http.startswith("https://")
    trusted = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    ok = {"Authorization": "Bearer " + TOKEN.decode()}
    with get(tls_http.http + "/arrays/", ok, trusted) as r:
        values = pa.ipc.open_stream(r).read_all().column(0).combine_chunks().to_numpy_ndarray()
    np.testing.assert_array_equal(values, expected())
    for headers in [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic " + TOKEN.decode()},
                    {"Authorization": "Bearer " + TOKEN.decode() + "x"}]:
        for path in ["/", "/arrays/", "/arrays/metadata", "/stats"]:
            code, body = error(tls_http.http + path, headers=headers, context=trusted)
            assert (code, body["error"]) == (401, "UNAUTHENTICATED"), (path, headers, body)
    # plaintext to the TLS port, and a client not trusting the server's CA, get nowhere
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        get(tls_http.http.replace("https://", "http://") + "/", ok).read()
    with pytest.raises(urllib.error.URLError):
        get(tls_http.http + "/", ok, ssl.create_default_context()).read()
    r = subprocess.run(["curl", "-sSf", "--cacert", str(certs / "ca.pem"), "-H", "Authorization: Bearer "
                        + TOKEN.decode(), tls_http.http + "/arrays/metadata"], capture_output=True, text=True)
    assert json.loads(r.stdout)["shape"] == [30, 41], r.stderr
