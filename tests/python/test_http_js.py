"""Arrow JS (npm apache-arrow) reads zaro's Arrow IPC over HTTP: `tableFromIPC(await fetch(url))`
in Node against a server started here; the values equal tensorstore's for the tensor layout and
pyarrow's reading of the same URL for the table layout; zstd and lz4 streams decoded by the codecs
the script registers (Arrow JS has none built in).

Needs node and tests/js/node_modules (`npm ci` in tests/js: apache-arrow from the npm registry,
pinned by package-lock.json); skipped, saying so, when either is absent."""
import json
import pathlib
import shutil
import subprocess
import urllib.parse
import urllib.request

import numpy as np
import pyarrow as pa
import pytest

from test_flight_serving import STORE, expected
from zaro_server import Server

JS = pathlib.Path(__file__).resolve().parents[1] / "js"

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(not (JS / "node_modules" / "apache-arrow").is_dir(),
                       reason="tests/js/node_modules is absent: run `npm ci` in tests/js (needs the npm registry)"),
]


@pytest.fixture(scope="module")
def served():
    with Server(STORE, "--http-port", "0") as s:
        yield s


def read_js(url):
    r = subprocess.run(["node", str(JS / "read_http.mjs"), url], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("compression", ["", "zstd", "lz4"])
def test_tensor_layout_equals_tensorstore(served, compression):
    """The whole array, as `tableFromIPC(await fetch(url))` reads it."""
    query = "?" + urllib.parse.urlencode({"compression": compression}) if compression else ""
    got = read_js(f"{served.http}/arrays/{query}")
    assert got["contentType"].startswith("application/vnd.apache.arrow.stream")
    want = expected()
    assert got["rows"] == want.shape[0]
    (column,) = got["columns"].values()
    np.testing.assert_array_equal(np.array(column["values"]).reshape(want.shape), want)


@pytest.mark.parametrize("compression", ["", "zstd", "lz4"])
def test_table_layout_equals_pyarrow(served, compression):
    query = {"slice": "28:30, 30:41", "layout": "table"} | ({"compression": compression} if compression else {})
    url = f"{served.http}/arrays/?" + urllib.parse.urlencode(query)
    got = read_js(url)
    with urllib.request.urlopen(url) as r:
        want = pa.ipc.open_stream(r).read_all()
    assert got["rows"] == want.num_rows == 22
    assert list(got["columns"]) == want.column_names
    for name in want.column_names:
        assert got["columns"][name]["values"] == want.column(name).to_pylist(), name
