"""`./zaro read` through remote STORE forms, against a server on loopback started here:
http:// (Python's http.server, which ignores Range), gs:// (the same server as the GCS
endpoint) and reference+parquet:// (kerchunk Parquet references; reference+json:// is in
test_kerchunk.py; s3:// against moto_server is tested in Java, zaro-s3's S3StoreTest).
Expected values: tensorstore reading the local copy, or h5py's values for the references.
"""
import functools
import http.server
import json
import os
import pathlib
import subprocess
import threading

import numpy as np
import pyarrow as pa
import pytest
import tensorstore as ts

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZARO = str(ROOT / "zaro")
ENV = dict(os.environ, ZARO_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"
KERCHUNK = ROOT / "testdata" / "kerchunk"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def http_root():
    handler = functools.partial(_Quiet, directory=str(ROOT / "testdata"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def zaro_read(store, path, sl, out, env=ENV):
    result = subprocess.run([ZARO, "read", store, path, "--slice", sl, "--out", str(out)],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    return pa.ipc.open_file(out).read_all().column(0).combine_chunks()


def sample(name, index):
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / name)}}).result()
    return t[index].read().result()


def check_sample(store, tmp_path, env=ENV):
    got = zaro_read(store, "t2m", "0:3, 10:20, 5:9", tmp_path / "t2m.arrow", env).to_numpy_ndarray()
    np.testing.assert_array_equal(got, sample("t2m", np.s_[0:3, 10:20, 5:9]))
    lat = zaro_read(store, "lat", "", tmp_path / "lat.arrow", env).to_numpy()
    np.testing.assert_array_equal(lat, sample("lat", np.s_[:]))


def test_http_store_with_consolidated_metadata(tmp_path, http_root):
    check_sample(f"{http_root}/sample/climate.zarr", tmp_path)


def test_gs_store_against_a_local_endpoint(tmp_path, http_root):
    check_sample("gs://sample/climate.zarr", tmp_path, dict(ENV, ZARO_GCS_ENDPOINT=http_root))


@pytest.mark.parametrize("parq,json_ref", json.loads((KERCHUNK / "manifest.json").read_text())["parquet"].items())
def test_parquet_references_equal_h5py(tmp_path, parq, json_ref):
    manifest = json.loads((KERCHUNK / "manifest.json").read_text())
    for name, arr in sorted(manifest["references"][json_ref]["arrays"].items()):
        column = zaro_read(f"reference+parquet://{KERCHUNK / parq}", name, "", tmp_path / f"{name}.arrow")
        if isinstance(column.type, pa.BaseExtensionType):
            column = column.storage
        while pa.types.is_fixed_size_list(column.type):
            column = column.flatten()
        dtype = np.dtype(arr["dtype"]).newbyteorder("<")
        want = np.frombuffer((KERCHUNK / arr["expected"]).read_bytes(), dtype=dtype).reshape(arr["shape"])
        np.testing.assert_array_equal(column.to_numpy(zero_copy_only=False).reshape(arr["shape"]), want)
