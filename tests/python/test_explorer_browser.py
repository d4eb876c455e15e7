"""The explorer page in a real browser: headless Chromium (Debian's `chromium`) driven by
playwright-core (tests/js/explorer.mjs) against a server started here. It walks the tree, opens an
array, reads the picture's pixels as the browser decoded them (equal to numpy's rendering of the
slice), moves the time slider (the picture changes to the next slice's), hovers a pixel (the value
shown is the array's), clicks it (its time series plotted), downloads a selection as Arrow IPC and as Parquet (read back by pyarrow), runs a SQL query
(the table shows DuckDB's answer) and sees DuckDB's error for a bad one. With tokens, the page asks
for one and sends it as a header, never in a URL.

Needs chromium (`apt-get install chromium`), node and tests/js/node_modules (`npm ci` in tests/js);
skipped, saying which is absent."""
import json
import pathlib
import shutil
import subprocess

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from test_explorer import on_disk, render, stored, write_store
from test_flight_serving import TOKEN, tokens  # noqa: F401 - fixture
from zaro_server import Server

JS = pathlib.Path(__file__).resolve().parents[1] / "js"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium)"),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(not (JS / "node_modules" / "playwright-core").is_dir(),
                       reason="tests/js/node_modules is absent: run `npm ci` in tests/js (needs the npm registry)"),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("explorer-browser") / "store.zarr"
    write_store(root)
    return root


def drive(url, out, token=None):
    r = subprocess.run(["node", str(JS / "explorer.mjs"), url, CHROMIUM, str(out)] + ([token] if token else []),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def pixels(shot):
    return np.array(shot["rgba"], dtype=np.uint8).reshape(shot["height"], shot["width"], 4)


def test_walk_picture_slider_hover_download_sql(store, tokens, tmp_path):  # noqa: F811 - fixture
    """One server with tokens and --sql, one browser: the token is asked for once and every data
    request carries it as a header, never in a URL."""
    with Server(store, "--http-port", "0", "--sql", "--auth-token-file", tokens) as s:
        got = drive(s.http, tmp_path, TOKEN.decode())
    assert not got.get("pageErrors"), got.get("pageErrors")
    data = [r for r in got["requests"] if "/arrays/" in r["url"] or "/sql" in r["url"]]
    assert len(data) > 5 and all(r["auth"] == "Bearer " + TOKEN.decode() for r in data)
    assert not any(TOKEN.decode() in r["url"] for r in got["requests"]) and not got["tokenAskedAgain"]
    assert {"t2m", "precip", "holes", "time", "lat", "lon"} <= set(got["tree"])
    assert got["sqlButton"]
    assert set(got["sizes"]) == {"t2m", "precip", "holes", "time", "lat", "lon"}
    for name, (nbytes, text) in got["sizes"].items():
        assert nbytes == on_disk(store / name)[0], name
    t2m_bytes = on_disk(store / "t2m")[0]
    assert 2**20 < t2m_bytes < 10 * 2**20
    assert got["sizes"]["t2m"][1] == f"float32 (48, 73, 144) · {t2m_bytes / 2**20:.2f} MiB"
    assert int(got["sizeRow"]) == t2m_bytes and dict(got["info"])["size on disk"].endswith("chunks stored)")
    t2m = stored(store, "t2m").astype(np.float64)
    for shot, t in ((got["first"], 0), (got["second"], 7)):
        want = t2m[t]
        np.testing.assert_array_equal(pixels(shot), render(want, want.min(), want.max(), "viridis"))
    assert not np.array_equal(pixels(got["first"]), pixels(got["second"]))
    assert got["sliderLabel"] == "2020-01-02T18:00:00"  # time[7]: 42 hours since 2020-01-01
    assert dict(got["info"])["units"] == "K" and got["colorbar"][1] == "K"
    assert float(got["hover"]["value"]) == float(np.float32(t2m[7, 20, 100]))
    assert "lat=40 degrees_north" in got["hover"]["text"]
    assert got["series"] == {"title": "time series at 20, 100 (t2m)", "points": 48}
    with pa.ipc.open_stream(tmp_path / "download.arrows") as r:
        table = r.read_all()
    assert got["download"] == "t2m.arrows"
    np.testing.assert_array_equal(table.column("t2m").to_numpy(), stored(store, "t2m")[7, 0:3, 0:4].ravel())
    assert got["parquet"] == "t2m.parquet"
    parquet = pq.read_table(tmp_path / "download.parquet")
    np.testing.assert_array_equal(parquet.column("t2m").to_numpy(), stored(store, "t2m")[7, 0:3, 0:4].ravel())
    sql = got["sql"]
    assert sql["head"] == ["latDOUBLE", "mean_t2mDOUBLE"] and sql["chart"]
    lats = stored(store, "lat")
    means = t2m.mean(axis=(0, 2))
    order = np.argsort(lats)[:5]
    assert [float(r[0]) for r in sql["rows"]] == [float(x) for x in lats[order]]
    np.testing.assert_allclose([float(r[1]) for r in sql["rows"]], means[order], rtol=1e-5)
    assert sql["time"].startswith("Run Time (s): real ")
    assert got["sqlError"] == 'INVALID_ARGUMENT: syntax error at or near "SELEC"'

