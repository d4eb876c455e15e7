"""The browser explorer's answers (`zaro serve --http-port P --sql`, docs/explorer.md), without a
browser: the pictures of /arrays/{path}/image.png pixel for pixel against numpy's rendering of the
same slice (values read by tensorstore, CF-decoded in numpy, colours from matplotlib's colormaps,
the PNG decoded by Pillow), values.json, values.csv and values.parquet against tensorstore, the SQL console against
numpy, the page for browsers and JSON for everyone else at /, tokens, and paths that try to leave
the store. tests/python/test_explorer_browser.py drives the page in Chromium."""
import functools
import http.server
import io
import json
import os
import pathlib
import shutil
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request

import matplotlib
import numpy as np
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
import tensorstore as ts
from PIL import Image

from test_flight_serving import TOKEN, tokens  # noqa: F401 - fixture
from zaro_server import ZARO, Server

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"
MAPS = {"viridis": "viridis", "rdbu": "RdBu_r"}  # the server's names -> matplotlib's


def write_store(root):
    """The sample (CF-packed precip with a fill region, t2m, coordinates) and a float64 array with
    NaNs, written by tensorstore; root metadata without consolidation, so both are listed."""
    shutil.copytree(SAMPLE, root)
    meta = json.loads((root / "zarr.json").read_text())
    meta.pop("consolidated_metadata")
    (root / "zarr.json").write_text(json.dumps(meta))
    holes = np.arange(6 * 9, dtype=np.float64).reshape(6, 9) / 7 - 2
    holes[1, 2] = holes[4, 0] = holes[5, 8] = np.nan
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(root / "holes")},
                 "metadata": {"shape": [6, 9], "data_type": "float64", "fill_value": "NaN",
                              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
                              "dimension_names": ["y", "x"], "attributes": {"units": "m"}}},
                create=True).result()
    t.write(holes).result()
    return holes


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("explorer") / "store.zarr"
    write_store(root)
    return root


@pytest.fixture(scope="module")
def served(store):
    with Server(store, "--http-port", "0", "--sql") as s:
        yield s


def stored(store, name):
    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(store / name)}}).result().read().result()


def precip(store):
    """xarray's CF decoding of the sample's precip, in numpy: fill -> NaN, then * scale + offset."""
    raw = stored(store, "precip")
    out = raw.astype(np.float64) * 0.01 + 0.0
    out[raw == -32768] = np.nan
    return out


def render(values, vmin, vmax, colormap):
    """numpy's picture: colour floor((v - vmin) / (vmax - vmin) * 256) clipped to [0, 255] of
    matplotlib's 256-colour map (its Normalize and Colormap rule), NaN transparent black."""
    lut = matplotlib.colormaps[MAPS[colormap]](np.arange(256), bytes=True)
    v = values.astype(np.float64)
    with np.errstate(invalid="ignore"):
        k = np.zeros(v.shape, dtype=np.int64) if vmax == vmin else \
            np.clip(np.floor((v - vmin) / (vmax - vmin) * 256), 0, 255).astype(np.int64)
    out = lut[np.where(np.isnan(v), 0, k)].copy()
    out[..., 3] = 255
    out[np.isnan(v)] = 0
    return out


def get(url, token=None, accept=None):
    headers = {}
    if token:
        headers["Authorization"] = "Bearer " + token.decode()
    if accept:
        headers["Accept"] = accept
    return urllib.request.urlopen(urllib.request.Request(url, headers=headers))


def picture(s, path, **params):
    with get(f"{s.http}/arrays/{path}/image.png?" + urllib.parse.urlencode(params)) as r:
        assert r.headers["Content-Type"] == "image/png"
        png = r.read()
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")), r.headers


def error(url, token=None):
    with pytest.raises(urllib.error.HTTPError) as e:
        get(url, token).read()
    return e.value.code, json.loads(e.value.read())


def test_picture_of_a_slice_equals_numpy_auto_range(served, store):
    got, headers = picture(served, "t2m", slice="5, :, :")
    want = stored(store, "t2m")[5].astype(np.float64)
    vmin, vmax = float(np.nanmin(want)), float(np.nanmax(want))
    assert float(headers["X-Zaro-Vmin"]) == vmin and float(headers["X-Zaro-Vmax"]) == vmax
    np.testing.assert_array_equal(got, render(want, vmin, vmax, "viridis"))


def test_cf_decoded_fill_transparent_and_clipped_by_vmin_vmax(served, store):
    """precip is int16 packed (scale_factor 0.01) with _FillValue -32768 over a region."""
    got, headers = picture(served, "precip", slice="40, :, :", vmin="0.5", vmax="3", colormap="rdbu")
    want = precip(store)[40]
    assert np.isnan(want).sum() > 100 and (want > 3).any() and (want < 0.5).any()
    expected = render(want, 0.5, 3.0, "rdbu")
    np.testing.assert_array_equal(got, expected)
    assert (got[np.isnan(want)] == 0).all()


def test_nan_transparent_and_a_transposed_slice(served, store):
    holes = stored(store, "holes")
    got, _ = picture(served, "holes", slice=":, :", vmin="-1", vmax="4")
    np.testing.assert_array_equal(got, render(holes, -1.0, 4.0, "viridis"))
    got, _ = picture(served, "t2m", slice=":, 10, :", colormap="rdbu", vmin="280", vmax="290")
    np.testing.assert_array_equal(got, render(stored(store, "t2m")[:, 10, :], 280.0, 290.0, "rdbu"))


def test_large_sides_are_strided(served, store):
    got, headers = picture(served, "t2m", slice="0, :, :", max_size="50")
    want = stored(store, "t2m")[0, ::2, ::3].astype(np.float64)  # 73 -> 37 rows, 144 -> 48 columns
    assert got.shape == (37, 48, 4)
    assert headers["X-Zaro-Selection"] == "0, 0:73:2, 0:142:3"
    np.testing.assert_array_equal(got, render(want, float(want.min()), float(want.max()), "viridis"))


@pytest.mark.parametrize("query, message", [
    ({"slice": "0, 0"}, "image.png draws a 2-D slice, but slice '0, 0' of array '/t2m' (shape [48, 73, 144])"
                       " leaves 1 dimension(s): give an integer index for the others"),
    ({"slice": ""}, "leaves 3 dimension(s)"),
    ({"slice": "0, :, :", "colormap": "jet"}, "unknown colormap 'jet' (zaro draws with: viridis, rdbu)"),
    ({"slice": "0, :, :", "vmin": "3", "vmax": "1"}, "vmin (3.0) is larger than vmax (1.0)"),
    ({"slice": "0, :, :", "vmin": "nan"}, "vmin must be a finite number, not 'nan'"),
    ({"slice": "0, :, :", "max_size": "9999"}, "max_size must be an integer from 1 to 2048"),
    ({"slice": "0, :, :", "width": "3"}, "unknown query parameter 'width'"),
    ({"slice": "0, 0:0, :"}, "is empty: nothing to draw"),
])
def test_bad_pictures_are_clear_400s(served, query, message):
    code, body = error(f"{served.http}/arrays/t2m/image.png?" + urllib.parse.urlencode(query))
    assert code == 400 and body["error"] == "INVALID_ARGUMENT"
    assert message in body["message"]


def test_values_json_is_the_decoded_table_layout(served, store):
    with get(f"{served.http}/arrays/time/values.json?slice=0:5") as r:
        doc = json.load(r)
    (col,) = [c for c in doc["columns"] if c["name"] == "time"][-1:]
    hours = stored(store, "time")[:5]
    want = (np.datetime64("2020-01-01T00:00:00") + hours.astype("timedelta64[h]")).astype(str)
    assert col["values"] == [str(w) for w in want] and doc["rows"] == 5
    with get(f"{served.http}/arrays/precip/values.json?" + urllib.parse.urlencode({"slice": "40, 60:62, 38:42"})) as r:
        doc = json.load(r)
    want = precip(store)[40, 60:62, 38:42].ravel()
    got = doc["columns"][-1]["values"]
    assert [c["name"] for c in doc["columns"]] == ["lat", "lon", "precip"]
    assert [None if np.isnan(w) else w for w in want] == got


def test_values_csv_reads_back_with_pyarrow(served, store):
    with get(f"{served.http}/arrays/t2m/values.csv?slice=3,0:4,0:5") as r:
        assert r.headers["Content-Disposition"] == 'attachment; filename="t2m.csv"'
        table = pcsv.read_csv(io.BytesIO(r.read()))
    assert table.column_names == ["lat", "lon", "t2m"]
    np.testing.assert_array_equal(table.column("t2m").to_numpy().astype(np.float32),
                                  stored(store, "t2m")[3, 0:4, 0:5].ravel())


def test_values_parquet_reads_back_with_pyarrow(served, store):
    """A 3-D selection of the CF-packed precip (fill -> NaN) as Parquet: the time, lat and lon
    columns and the decoded values against numpy, and the same rows as the CSV download."""
    slice_ = "38:41, 59:62, 37:42"
    with get(f"{served.http}/arrays/precip/values.parquet?" + urllib.parse.urlencode({"slice": slice_})) as r:
        assert r.headers["Content-Type"] == "application/vnd.apache.parquet"
        assert r.headers["Content-Disposition"] == 'attachment; filename="precip.parquet"'
        table = pq.read_table(io.BytesIO(r.read()))
    assert table.column_names == ["time", "lat", "lon", "precip"]
    want = precip(store)[38:41, 59:62, 37:42]
    assert np.isnan(want).any() and not np.isnan(want).all()  # the slice crosses the fill region
    got = table.column("precip").to_numpy(zero_copy_only=False)
    np.testing.assert_array_equal(got, want.ravel())  # NaN where numpy has NaN
    t, y, x = np.meshgrid(np.arange(38, 41), np.arange(59, 62), np.arange(37, 42), indexing="ij")
    hours = stored(store, "time")[t.ravel()]
    times = np.datetime64("2020-01-01T00:00:00") + hours.astype("timedelta64[h]")
    np.testing.assert_array_equal(table.column("time").to_numpy().astype("datetime64[s]"), times)
    np.testing.assert_array_equal(table.column("lat").to_numpy(), stored(store, "lat")[y.ravel()])
    np.testing.assert_array_equal(table.column("lon").to_numpy(), stored(store, "lon")[x.ravel()])
    with get(f"{served.http}/arrays/precip/values.csv?" + urllib.parse.urlencode({"slice": slice_})) as r:
        csv = pcsv.read_csv(io.BytesIO(r.read()))
    for name in ("lat", "lon", "precip"):
        np.testing.assert_array_equal(table.column(name).to_numpy(zero_copy_only=False),
                                      csv.column(name).to_numpy(zero_copy_only=False), name)


def on_disk(array_dir):
    """An array's size on disk by the file system: its files' sizes, metadata documents left out."""
    files = [pathlib.Path(d, f) for d, _, fs in os.walk(array_dir) for f in fs
             if f not in ("zarr.json", ".zarray", ".zattrs")]
    return sum(os.path.getsize(f) for f in files), len(files)


def test_sizes_on_disk_are_the_chunk_files(served, store):
    with get(f"{served.http}/sizes.json") as r:
        doc = json.load(r)
    assert doc["known"] is True
    arrays = {"t2m", "precip", "holes", "time", "lat", "lon"}
    assert set(doc["arrays"]) == arrays
    for name in arrays:
        nbytes, nfiles = on_disk(store / name)
        assert nfiles > 0, name
        assert doc["arrays"][name] == {"bytes": nbytes, "keys": nfiles}, name


class _Logged(http.server.SimpleHTTPRequestHandler):
    paths = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.paths.append(self.path)
        super().do_GET()


def test_no_sizes_from_a_store_that_cannot_list_them(store):
    """Over plain HTTP (no listing with sizes) the answer is unknown, and no chunk is fetched."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Logged, directory=str(SAMPLE.parent)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{SAMPLE.name}"
        with Server(url, "--http-port", "0") as s:
            before = len(_Logged.paths)
            with get(f"{s.http}/sizes.json") as r:
                assert json.load(r) == {"known": False}
            assert _Logged.paths[before:] == []
    finally:
        server.shutdown()
        server.server_close()


def test_sql_console_answers_json_and_duckdb_errors(served, store):
    q = "SELECT count(*) AS n, max(t2m) AS hi FROM t2m WHERE time < TIMESTAMP '2020-01-02'"
    with get(f"{served.http}/sql?" + urllib.parse.urlencode({"q": q})) as r:
        doc = json.load(r)
    t2m = stored(store, "t2m")[:4]  # 6-hourly: 4 steps before 2020-01-02
    assert [c["name"] for c in doc["columns"]] == ["n", "hi"]
    assert doc["rows"] == [[t2m.size, float(t2m.max())]]
    assert doc["seconds"] > 0 and "chunks" in json.dumps(doc["stats"])
    code, body = error(f"{served.http}/sql?q=SELEC")
    assert code == 400 and body["message"] == 'syntax error at or near "SELEC"'


def test_root_is_the_page_for_browsers_and_json_for_others(served):
    with get(served.http + "/", accept="text/html,application/xhtml+xml,*/*;q=0.8") as r:
        assert r.headers["Content-Type"] == "text/html; charset=utf-8"
        assert "default-src 'none'" in r.headers["Content-Security-Policy"]
        page = r.read().decode()
    assert '<script src="/ui/app.js"' in page and "http" not in page.replace("http-equiv", "")
    with get(served.http + "/") as r:
        nodes = json.load(r)["nodes"]
    assert {n["path"].strip("/") for n in nodes} >= {"t2m", "precip", "holes", "time"}
    for asset in ("app.js", "app.css", "colormaps.txt"):
        with get(f"{served.http}/ui/{asset}") as r:
            body = r.read().decode().replace('"http://www.w3.org/2000/svg"', "SVG's namespace")
        assert "https://" not in body and "http://" not in body, asset  # nothing from outside


@pytest.mark.parametrize("path", [
    "/arrays/../../etc/passwd/image.png?slice=0,0",
    "/arrays/%2e%2e/%2e%2e/etc/passwd/values.json",
    "/arrays/..%2f..%2fetc/values.csv",
    "/arrays/..%2f..%2fetc/values.parquet",
    "/arrays/t2m/../../../etc/image.png",
    "/ui/../zarr.json",
    "/ui/%2e%2e/app.js",
    "/ui/app.js/../../t2m/zarr.json",
])
def test_nothing_outside_the_store(served, path):
    with pytest.raises(urllib.error.HTTPError) as e:
        get(served.http + path, accept="text/html").read()
    assert e.value.code in (400, 404), path


def test_tokens_page_free_data_not(store, tokens):  # noqa: F811 - the fixture
    with Server(store, "--http-port", "0", "--auth-token-file", tokens) as s:
        with get(s.http + "/", accept="text/html") as r:
            assert r.status == 200  # the page holds no data: it asks for the token
        for url in ("/arrays/t2m/image.png?slice=0,:,:", "/arrays/time/values.json", "/sql?q=SELECT%201", "/",
                    "/sizes.json"):
            code, body = error(s.http + url)
            assert code == 401 and body["error"] == "UNAUTHENTICATED", url
        code, _ = error(s.http + "/arrays/t2m/image.png?slice=0,:,:", token=b"wrong")
        assert code == 401
        with get(s.http + "/arrays/t2m/image.png?slice=0,:,:", token=TOKEN) as r:
            assert r.read(8) == b"\x89PNG\r\n\x1a\n"


def test_zaro_ui_prints_the_page_url(store):
    """`zaro ui STORE` serves on loopback with the SQL console and prints the page's URL."""
    proc = subprocess.Popen([ZARO, "ui", str(store), "--no-browser"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in proc.stdout:
            if line.startswith("zaro explorer: "):
                url = line.split(": ", 1)[1].strip()
                break
        assert url and url.startswith("http://127.0.0.1:") and url.endswith("/"), url
        with get(url, accept="text/html") as r:
            assert "<title>zaro explorer</title>" in r.read().decode()
        with get(url + "sql") as r:
            assert json.load(r) == {"sql": True}
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
