"""Structs and narrow types through `./zaro`, beyond the tensor-layout reads that
test_read_pyarrow.py checks for every fixture: the table layout of struct arrays (one column
per field, `<array>.<field>`), `info`, and bad struct metadata refused with the field named.

Expected values: numpy's (testdata/dtypes: numpy structured arrays; testdata/v2structured:
zarr-python 2's read-back), read from the fixtures' expected files.
"""
import json
import pathlib
import shutil
import subprocess

import numpy as np
import pyarrow as pa
import pytest

from test_read_pyarrow import ENV, ZARO, assert_arrow_equals_numpy, numpy_dtype, to_index, zaro_read

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


def case(set_name, name):
    doc = json.loads((TESTDATA / set_name / "cases.json").read_text())
    return next(c for c in doc["cases"] if c["name"] == name)


def full_values(set_name, name):
    c = case(set_name, name)
    read = c["reads"][0]
    assert read["slice"] == ""
    return np.fromfile(TESTDATA / set_name / read["expected"], dtype=numpy_dtype(c["numpy_dtype"])).reshape(c["shape"])


@pytest.mark.parametrize("set_name,name,sl", [
    ("dtypes", "struct", "1:7:2, 1:4"),
    ("dtypes", "struct_big_endian", "2:6, :"),
    ("v2structured", "rich", "2:12:3"),
    ("v2structured", "aligned_order_f", "1:5, 1:6:2"),
])
def test_struct_table_layout_has_a_column_per_field(tmp_path, set_name, name, sl):
    c = case(set_name, name)
    table = zaro_read(TESTDATA / set_name / c["store"], "", sl, tmp_path / "t.arrow", "--layout", "table")
    values = full_values(set_name, name)
    index = to_index(sl, values.shape)
    want = values[index]
    fields = c.get("fields", list(values.dtype.names))
    dims = [f"dim_{d}" for d in range(values.ndim)]
    assert table.column_names == dims + [f"data.{f}" for f in fields]
    grids = np.meshgrid(*[np.arange(n)[i] for n, i in zip(values.shape, index)], indexing="ij")
    for d, g in zip(dims, grids):
        np.testing.assert_array_equal(table.column(d).to_numpy(), g.ravel())
    flat = want.reshape(-1)
    for f in fields:
        assert_arrow_equals_numpy(table.column(f"data.{f}").combine_chunks(), flat[f], f)


def test_info_lists_struct_fields():
    store = TESTDATA / "v2structured" / "stores" / "rich.zarr"
    result = subprocess.run([ZARO, "info", str(store), "/"], capture_output=True, text=True, env=ENV)
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["data_type"] == "struct"
    fields = {f["name"]: f for f in info["fields"]}
    assert list(fields) == ["a", "b", "p", "s", "q", "u", "t", "ok", "c", "ps"]
    assert fields["b"]["shape"] == [2] and fields["b"]["offset"] == 4
    assert [f["name"] for f in fields["p"]["fields"]] == ["x", "y"]
    assert info["fill_value"]["a"] == -1 and info["fill_value"]["b"] == [1.5, -0.5]


def broken(tmp_path, dtype, fill="AAAAAAAAAAA="):
    store = tmp_path / "bad.zarr"
    shutil.copytree(TESTDATA / "v2structured" / "stores" / "basic.zarr", store)
    meta = json.loads((store / ".zarray").read_text())
    meta["dtype"], meta["fill_value"] = dtype, fill
    (store / ".zarray").write_text(json.dumps(meta))
    return store


@pytest.mark.parametrize("dtype,fill,message", [
    ({"names": ["a", "b"], "formats": ["<i4", "<i4"], "offsets": [0, 2], "itemsize": 8}, "AAAAAAAAAAA=",
     "struct fields 'a' (bytes 0..4) and 'b' (bytes 2..6) overlap"),
    ({"names": ["a", "b"], "formats": ["<i4", "<f8"], "offsets": [0, 4], "itemsize": 8}, "AAAAAAAAAAA=",
     "struct field 'b' (bytes 4..12) reaches past the item size of 8 bytes"),
    ([["a", "<i4"], ["b", "<q7"]], "AAAAAAAAAAA=", "structured field 'b': unknown data type '<q7'"),
    ([["a", "<i4"], ["b", "|O"]], "AAAAAAAAAAA=", "structured field 'b': data type '|O' is not supported"),
    ([["a", "<i4"], ["b", "<f4"]], "AAAA", "fill_value holds 3 bytes (base64), the struct 8"),
    ([["a", "<i4"], ["b", ">f4"]], "AAAAAAAAAAA=", "'a' little, 'b' big"),
])
def test_bad_struct_metadata_is_refused_naming_the_field(tmp_path, dtype, fill, message):
    store = broken(tmp_path, dtype, fill)
    out = tmp_path / "x.arrow"
    result = subprocess.run([ZARO, "read", str(store), "/", "--out", str(out)], capture_output=True, text=True,
                            env=ENV)
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert ".zarray" in result.stderr and "Exception" not in result.stderr
    assert not out.exists()
