"""`./zaro read --missing-chunks error` fails naming the absent chunk's key and writes nothing;
by default the same read gives tensorstore's values (fill where tensorstore wrote no chunk)."""
import os
import pathlib
import re
import subprocess

import numpy as np
import pyarrow as pa
import tensorstore as ts

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZARO = str(ROOT / "zaro")
ENV = dict(os.environ, ZARO_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
STORE = ROOT / "testdata" / "core" / "stores" / "sparse_interior.zarr"


def test_missing_chunks_error_names_the_key(tmp_path):
    out = tmp_path / "x.arrow"
    r = subprocess.run([ZARO, "read", str(STORE), "/", "--missing-chunks", "error", "--out", str(out)],
                       env=ENV, capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    # chunks are read in parallel: the error names whichever absent chunk came first
    named = re.search(r"key '(c/\d+/\d+)'", r.stderr)
    assert named and "absent" in r.stderr, r.stderr
    assert not (STORE / named.group(1)).exists(), named.group(1)
    assert "Exception" not in r.stderr
    assert not out.exists()


def test_missing_chunks_fill_is_the_default(tmp_path):
    out = tmp_path / "x.arrow"
    r = subprocess.run([ZARO, "read", str(STORE), "/", "--out", str(out)], env=ENV, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = pa.ipc.open_file(str(out)).read_all().column(0).combine_chunks().to_numpy_ndarray()
    want = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(STORE)}}).result().read().result()
    np.testing.assert_array_equal(got, want)


def test_a_bad_policy_is_refused():
    r = subprocess.run([ZARO, "read", str(STORE), "/", "--missing-chunks", "maybe", "--out", "/tmp/never.arrow"],
                       env=ENV, capture_output=True, text=True)
    assert r.returncode != 0
    assert "--missing-chunks" in r.stderr
