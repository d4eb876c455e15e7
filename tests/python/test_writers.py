"""Stores other tools wrote (testdata/writers/<tool>: GDAL 3.6, netCDF-C 4.9's nccopy, zarrita):
`./zaro read` + pyarrow gives the values each tool was given (their inputs, saved beside the
stores), array by array."""
import json

import numpy as np
import pyarrow as pa
import pytest

from test_read_pyarrow import ROOT, to_numpy, zaro_read

WRITERS = ROOT / "testdata" / "writers"


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
    table = zaro_read(tool_dir / case["store"], case["path"], "", tmp_path / "out.arrow")
    want = expected(tool_dir, case)
    got = to_numpy(table, str(want.dtype))
    assert got.shape == want.shape, case["what"]
    assert got.dtype == want.dtype.newbyteorder("="), case["what"]
    np.testing.assert_array_equal(got, want, err_msg=case["what"])
