"""Stores other tools wrote (testdata/writers/<tool>: GDAL 3.6, netCDF-C 4.9's nccopy, zarrita):
`./zaro read` + pyarrow gives the values each tool was given (their inputs, saved beside the
stores), array by array."""
import json
import subprocess

import numpy as np
import pyarrow as pa
import pytest

from test_read_pyarrow import ENV, ROOT, ZARO, to_numpy, zaro_read

WRITERS = ROOT / "testdata" / "writers"
# arrays zaro refuses, and what the error says: zarrita names numcodecs' LZ4 framing "lz4" in v3,
# a name no spec registers (zaro reads it as numcodecs.lz4)
REFUSED = {("zarrita", "uint8_lz4"): "codec 'lz4' is not supported"}


def cases():
    out = []
    for cases_json in sorted(WRITERS.glob("*/cases.json")):
        doc = json.loads(cases_json.read_text())
        for case in doc["cases"]:
            out.append(pytest.param(cases_json.parent, case,
                                    id=f"{cases_json.parent.name}/{case['store'].split('/')[-1]}/{case['path']}"))
    return out


def expected(tool_dir, case):
    exp = tool_dir / case["expected"]
    if exp.suffix == ".npy":
        return np.load(exp)
    return np.fromfile(exp, dtype=np.dtype(case["data_type"]).newbyteorder("<")).reshape(case["shape"])


@pytest.mark.parametrize("tool_dir,case", cases())
def test_values_equal_the_writers_input(tmp_path, tool_dir, case):
    refused = REFUSED.get((tool_dir.name, case["path"]))
    if refused:
        out = tmp_path / "out.arrow"
        result = subprocess.run([ZARO, "read", str(tool_dir / case["store"]), case["path"], "--out", str(out)],
                                capture_output=True, text=True, env=ENV)
        assert result.returncode != 0 and refused in result.stderr and "Exception" not in result.stderr
        assert not out.exists()
        return
    table = zaro_read(tool_dir / case["store"], case["path"], "", tmp_path / "out.arrow")
    want = expected(tool_dir, case)
    got = to_numpy(table, str(want.dtype))
    assert got.shape == want.shape, case["what"]
    assert got.dtype == want.dtype.newbyteorder("="), case["what"]
    np.testing.assert_array_equal(got, want, err_msg=case["what"])
