"""`./zaro read reference+json://...` over the kerchunk fixtures (HDF5 / NetCDF4-like files
written by h5py, references from h5py's chunk index: testdata/kerchunk/generate_kerchunk.py):
every array equals h5py's values, from a local reference file and over HTTP from Python's
own http.server (which ignores Range headers, so zaro must slice whole replies).
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

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZARO = str(ROOT / "zaro")
ENV = dict(os.environ, ZARO_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
KERCHUNK = ROOT / "testdata" / "kerchunk"
MANIFEST = json.loads((KERCHUNK / "manifest.json").read_text())


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def http_root():
    handler = functools.partial(_Quiet, directory=str(KERCHUNK))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def arrays():
    out = []
    for ref, info in sorted(MANIFEST["references"].items()):
        for name, arr in sorted(info["arrays"].items()):
            out.append(pytest.param(ref, name, arr, id=f"{ref}:{name}"))
    return out


def to_numpy(table, shape):
    column = table.column(0).combine_chunks()
    if isinstance(column.type, pa.BaseExtensionType):
        column = column.storage
    while pa.types.is_fixed_size_list(column.type):
        column = column.flatten()
    return column.to_numpy(zero_copy_only=False).reshape(shape)


def zaro_read(store, path, ndim, out):
    sl = ",".join([":"] * ndim)
    result = subprocess.run([ZARO, "read", store, path, "--slice", sl, "--out", str(out)],
                            capture_output=True, text=True, env=ENV)
    assert result.returncode == 0, result.stderr
    return pa.ipc.open_file(out).read_all()


def want(arr):
    dtype = np.dtype(arr["dtype"]).newbyteorder("<")
    return np.frombuffer((KERCHUNK / arr["expected"]).read_bytes(), dtype=dtype).reshape(arr["shape"])


@pytest.mark.parametrize("ref,name,arr", arrays())
def test_local_reference_reads_equal_h5py(tmp_path, ref, name, arr):
    table = zaro_read(f"reference+json://{KERCHUNK / ref}", name, len(arr["shape"]), tmp_path / "out.arrow")
    np.testing.assert_array_equal(to_numpy(table, arr["shape"]), want(arr))


@pytest.mark.parametrize("ref", sorted(MANIFEST["references"]))
def test_reference_over_http_without_range_support(tmp_path, http_root, ref):
    for name, arr in sorted(MANIFEST["references"][ref]["arrays"].items()):
        table = zaro_read(f"reference+json://{http_root}/{ref}", name, len(arr["shape"]), tmp_path / f"{name}.arrow")
        np.testing.assert_array_equal(to_numpy(table, arr["shape"]), want(arr))


def test_reference_over_http_may_not_read_local_files(tmp_path, http_root):
    evil = KERCHUNK / "evil.tmp.json"
    evil.write_text(json.dumps({".zgroup": '{"zarr_format": 2}',
                                "a/.zarray": json.dumps({"chunks": [4], "compressor": None, "dtype": "|u1",
                                                         "fill_value": 0, "filters": None, "order": "C",
                                                         "shape": [4], "zarr_format": 2}),
                                "a/0": ["/etc/hostname", 0, 4]}))
    try:
        result = subprocess.run([ZARO, "read", f"reference+json://{http_root}/evil.tmp.json", "a",
                                 "--out", str(tmp_path / "x.arrow")], capture_output=True, text=True, env=ENV)
    finally:
        evil.unlink()
    assert result.returncode != 0
    assert "may not read local files" in result.stderr
    assert not (tmp_path / "x.arrow").exists()
