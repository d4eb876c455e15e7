"""`./zaro read` opens Zarr v2 metadata with bare NaN / Infinity (zarr-python 2 wrote
testdata/lenient); pyarrow's values equal numpy's expected file, bit for bit."""
import os
import pathlib
import subprocess

import numpy as np
import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZARO = str(ROOT / "zaro")
ENV = dict(os.environ, ZARO_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
LENIENT = ROOT / "testdata" / "lenient"


@pytest.mark.parametrize("store", [str(LENIENT / "stores" / "attrs.zarr"),
                                   "reference+json://" + str(LENIENT / "refs" / "attrs.json")])
def test_bare_non_finite_tokens(store, tmp_path):
    out = tmp_path / "v.arrow"
    result = subprocess.run([ZARO, "read", store, "v", "--out", str(out)], env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    got = pa.ipc.open_file(str(out)).read_all().column("v").combine_chunks().to_numpy_ndarray()
    want = np.fromfile(LENIENT / "expected" / "attrs.bin", dtype="<f4").reshape(6, 5)
    assert got.tobytes() == want.tobytes()
    info = subprocess.run([ZARO, "info", store, "v"], env=ENV, capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "valid_min" in info.stdout
