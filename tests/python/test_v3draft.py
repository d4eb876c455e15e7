"""Zarr v3 draft stores (testdata/v3draft: meta/ + data/root/, written by zarr-python 2.13 with its
experimental v3 API and by zarrita 0.1) through every consumer that shares the one model: `zaro
ls`/`info`, the Flight server with the Python client (list, info, read, read_table, Flight SQL),
its HTTP endpoint, and an http:// store that cannot list. `./zaro read` of every case is in
test_read_pyarrow.py, with the other fixture sets.

Expected values: zarr-python 2's own reads (expected/, written by the generator).
"""
import functools
import http.server
import json
import os
import subprocess
import threading
import urllib.request

import numpy as np
import pyarrow as pa
import pytest

import zaro_client
from zaro_server import ROOT, Server

SET = ROOT / "testdata" / "v3draft"
DOC = json.loads((SET / "cases.json").read_text())
HIERARCHY = SET / "stores" / "hierarchy.zr3"
ZARO = str(ROOT / "zaro")
ENV = dict(os.environ, ZARO_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
DTYPES = {"float32": "<f4", "float64": "<f8", "int16": "<i2", "int64": "<i8", "uint8": "u1"}
ARRAYS = [c for c in DOC["cases"] if c["store"] == "stores/hierarchy.zr3"]


def expected(case, i=0):
    read = case["reads"][i]
    return np.fromfile(SET / read["expected"], dtype=DTYPES[case["data_type"]]).reshape(read["shape"])


def zaro(*args):
    return subprocess.run([ZARO, *map(str, args)], capture_output=True, text=True, env=ENV)


@pytest.fixture(scope="module")
def served():
    with Server(HIERARCHY, "--sql", "--http-port", "0") as s:
        yield s


@pytest.fixture(scope="module")
def client(served):
    with zaro_client.connect(served.uri) as c:
        yield c


def test_ls_and_info_show_the_draft_format():
    ls = zaro("ls", HIERARCHY)
    assert ls.returncode == 0, ls.stderr
    lines = {line.split()[0]: line for line in ls.stdout.splitlines()}
    assert set(lines) == {n["path"] for n in DOC["hierarchy"]["nodes"]}
    assert all("v3 draft" in line for line in lines.values())
    assert "(implicit, v3 draft)" in lines["/sparse"]
    info = zaro("info", HIERARCHY, "/grp")
    assert info.returncode == 0, info.stderr
    grp = json.loads(info.stdout)
    assert grp["format"] == "v3 draft" and grp["attributes"] == DOC["hierarchy"]["attributes"]["/grp"]
    assert {c["path"] for c in grp["children"]} == {"/grp/" + n for n in
                                                    ["blosc_lz4_bitshuffle", "gzip", "zlib", "lz4", "raw", "sub"]}


def test_client_lists_and_reads_every_array(client):
    listed = {n["path"]: n["node_type"] for n in client.list()}
    assert listed == {n["path"]: n["kind"] for n in DOC["hierarchy"]["nodes"]}
    for case in ARRAYS:
        info = client.info(case["path"])
        assert info["format"] == "v3 draft" and info["shape"] == case["shape"], info
        np.testing.assert_array_equal(client.read(case["path"]), expected(case))
        np.testing.assert_array_equal(client.read(case["path"], case["reads"][1]["slice"]), expected(case, 1))


def test_table_layout_and_sql(client):
    case = next(c for c in ARRAYS if c["path"] == "grp/sub/int16_F")
    table = client.read_table(case["path"])
    want = expected(case)
    rows, cols = np.meshgrid(np.arange(want.shape[0]), np.arange(want.shape[1]), indexing="ij")
    np.testing.assert_array_equal(table.column("dim_0").to_numpy(), rows.reshape(-1))
    np.testing.assert_array_equal(table.column("int16_F").to_numpy(), want.reshape(-1))
    big = next(c for c in ARRAYS if c["path"] == "big_int64")
    got = client.sql('select count(*) as n, sum("big_int64") as total from "big_int64" where dim_1 < 4')
    values = expected(big)[:, :4]
    assert got.column("n").to_pylist() == [values.size]
    assert got.column("total").to_pylist() == [sum(int(v) for v in values.flat)]


def test_http_endpoint_streams_a_draft_array(served):
    case = next(c for c in ARRAYS if c["path"] == "grp/blosc_lz4_bitshuffle")
    with urllib.request.urlopen(f"{served.http}/arrays/{case['path']}?slice=1:6,2:9") as r:
        column = pa.ipc.open_stream(r).read_all().column(0).combine_chunks()
    np.testing.assert_array_equal(column.to_numpy_ndarray(), expected(case, 1))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def http_root():
    handler = functools.partial(_Quiet, directory=str(SET / "stores"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_http_store_reads_arrays_by_path(tmp_path, http_root):
    """http:// cannot list: the root alone is listed (as for v3 without consolidated metadata), and
    every array named by its path reads as it does locally."""
    ls = zaro("ls", f"{http_root}/hierarchy.zr3")
    assert ls.returncode == 0 and ls.stdout.split() == ["/", "group", "(v3", "draft)"], ls.stdout
    assert "cannot list its keys" in ls.stderr
    for case in ARRAYS + [c for c in DOC["cases"] if c["name"] == "zarrita_blosc_lz4"]:
        out = tmp_path / f"{case['name']}.arrow"
        store = f"{http_root}/{case['store'].split('/', 1)[1]}"
        read = zaro("read", store, case["path"], "--slice", case["reads"][1]["slice"], "--out", out)
        assert read.returncode == 0, read.stderr
        column = pa.ipc.open_file(out).read_all().column(0).combine_chunks()
        got = column.to_numpy_ndarray() if isinstance(column, pa.FixedShapeTensorArray) else column.to_numpy()
        np.testing.assert_array_equal(got, expected(case, 1))


def test_an_http_store_with_consolidated_metadata_lists_everything(tmp_path, http_root):
    """zarr-python's consolidated metadata for the drafts names every node: nothing else is listed."""
    store = f"{http_root}/consolidated.zr3"
    ls = zaro("ls", store)
    assert ls.returncode == 0 and "cannot list" not in ls.stderr, ls.stderr
    assert [line.split()[0] for line in ls.stdout.splitlines()] == ["/", "/consolidated", "/obs", "/obs/temp"]
    case = next(c for c in DOC["cases"] if c["name"] == "consolidated_obs_temp")
    read = zaro("read", store, "obs/temp", "--slice", case["reads"][1]["slice"], "--out", tmp_path / "t.arrow")
    assert read.returncode == 0, read.stderr
    got = pa.ipc.open_file(tmp_path / "t.arrow").read_all().column(0).combine_chunks().to_numpy_ndarray()
    np.testing.assert_array_equal(got, expected(case, 1))


@pytest.mark.parametrize("name,doc,key,words", [
    ("protocol", {"zarr.json": {"zarr_format": "https://purl.org/zarr/spec/protocol/core/9.0",
                                "metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0",
                                "metadata_key_suffix": ".json", "extensions": []}},
     "zarr.json", "protocol/core/9.0"),
    ("grid", {"meta/root/a.array.json": {"shape": [4], "data_type": "<f4", "chunk_memory_layout": "C",
                                         "chunk_grid": {"type": "irregular", "chunk_shape": [2], "separator": "/"},
                                         "fill_value": 0, "attributes": {}, "extensions": []}},
     "meta/root/a.array.json", "irregular"),
    ("codec", {"meta/root/a.array.json": {"shape": [4], "data_type": "<f4", "chunk_memory_layout": "C",
                                          "chunk_grid": {"type": "regular", "chunk_shape": [2], "separator": "/"},
                                          "fill_value": 0, "attributes": {}, "extensions": [],
                                          "compressor": {"codec": "https://purl.org/zarr/spec/codec/snappy/1.0",
                                                         "configuration": {}}}},
     "meta/root/a.array.json", "codec/snappy/1.0"),
])
def test_bad_draft_metadata_is_refused_naming_the_key(tmp_path, name, doc, key, words):
    store = tmp_path / f"{name}.zr3"
    entry = {"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0",
             "metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0",
             "metadata_key_suffix": ".json", "extensions": []}
    for k, v in {"zarr.json": entry, **doc}.items():
        (store / k).parent.mkdir(parents=True, exist_ok=True)
        (store / k).write_text(json.dumps(v))
    read = zaro("read", store, "a", "--out", tmp_path / "a.arrow")
    assert read.returncode != 0 and not (tmp_path / "a.arrow").exists()
    assert f"key '{key}'" in read.stderr and words in read.stderr, read.stderr
