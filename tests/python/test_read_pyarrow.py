"""pyarrow opens what `./zaro read` writes; the values equal tensorstore's (or numpy's, for
arrays tensorstore cannot write) for the same selection.

Covers every cases.json under testdata/ (tensor layout) and the bundled sample in both
layouts, CF decoding included.
"""
import json
import os
import pathlib
import sys
import subprocess

import numpy as np
import pyarrow as pa
import pytest
import tensorstore as ts

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "testdata"))
from selection import has_lists, to_index  # noqa: E402  (testdata/selection.py)
ZARO = str(ROOT / "zaro")
# many short JVM runs: start quickly (C1 only) - the values are what is tested here, not speed
ENV = dict(os.environ, ZARO_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"


def cases():
    """Every fixture array of every set, through its last read (a selection, where a case has
    several; its first is usually everything). The Java FixtureReadTest checks every read of every
    set byte for byte; here each read is a JVM start, so one a case shows that pyarrow opens
    what the command line writes for every array, type and codec."""
    out = []
    for cases_json in sorted((ROOT / "testdata").glob("*/cases.json")):
        doc = json.loads(cases_json.read_text())
        for case in doc.get("cases", []):
            case = dict(case, options=doc.get("options", {}))
            for read in case["reads"][-1:]:
                out.append(pytest.param(cases_json.parent, case, read,
                                        id=f"{cases_json.parent.name}/{case['name']}[{read['slice']}]"))
    return out


def zaro_read(store, path, sl, out, *extra):
    result = subprocess.run([ZARO, "read", str(store), path or "/", "--slice", sl, "--out", str(out), *extra],
                            capture_output=True, text=True, env=ENV)
    assert result.returncode == 0, result.stderr
    return pa.ipc.open_file(out).read_all()


def to_numpy(table, dtype_name):
    """The tensor-layout column back to a numpy array (docs/contracts.md, "Arrow shapes")."""
    column = table.column(0).combine_chunks()
    if isinstance(column, pa.FixedShapeTensorArray):
        if pa.types.is_boolean(column.type.value_type):
            shape = [len(column)] + list(column.type.shape)
            return np.asarray(column.storage.flatten().to_numpy(zero_copy_only=False)).reshape(shape)
        return column.to_numpy_ndarray()
    if pa.types.is_fixed_size_list(column.type):
        shape = [len(column), column.type.list_size]
        values = column.flatten()
        if pa.types.is_timestamp(values.type) or pa.types.is_duration(values.type):
            return values.to_numpy(zero_copy_only=False).reshape(shape)   # NaT is a null
        return np.asarray(values.to_pylist(), dtype=object).reshape(shape)
    if pa.types.is_string(column.type) or pa.types.is_binary(column.type):
        return np.asarray(column.to_pylist(), dtype=object)
    if pa.types.is_fixed_size_binary(column.type):
        return np.asarray(column.to_pylist(), dtype=object)
    return column.to_numpy(zero_copy_only=False)


NUMPY_TYPES = {"bool": "u1", "int2": "<i1", "int4": "<i1", "uint2": "<u1", "uint4": "<u1", "int8": "<i1", "int16": "<i2", "int32": "<i4", "int64": "<i8", "uint8": "<u1",
               "uint16": "<u2", "uint32": "<u4", "uint64": "<u8", "float16": "<f2", "float32": "<f4",
               "float64": "<f8", "complex64": "<c8", "complex128": "<c16"}


def expected(set_dir, case, read):
    """tensorstore's own read of a v3 store it can open; else the generator's values (numpy,
    numcodecs or zarr-python wrote them: v2 stores, types tensorstore lacks)."""
    store = set_dir / case["store"]
    meta_path = store / case["path"] / "zarr.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else None
    # arrays tensorstore cannot open say who wrote them ("numpy+numcodecs", "zarrs ...")
    written_by_other = meta is not None and "written_by" in meta.get("attributes", {})
    if meta is not None and not written_by_other:
        t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file",
                                                    "path": str((store / case["path"]).resolve())}}).result()
        if has_lists(read["slice"]):  # index lists: outer indexing, tensorstore's oindex
            index = tuple(np.asarray(x, dtype=np.int64) if isinstance(x, list) else x
                          for x in to_index(read["slice"], t.shape))
            values = t.oindex[index].read().result()
        else:
            values = t[to_index(read["slice"], t.shape)].read().result()
        # ml_dtypes int2/int4: zaro reads them as int8 (docs/contracts.md, "Arrow shapes")
        if values.dtype.name in ("int2", "int4"):
            return values.astype(np.int8)
        # ML float types: zaro gives float32 values, ml_dtypes' own widening is the reference
        if case.get("values") == "float32":
            return values.astype(np.float32)
        return values
    exp = set_dir / read["expected"]
    if "numpy_dtype" in case:  # structs: numpy's packed little-endian elements
        return np.fromfile(exp, dtype=numpy_dtype(case["numpy_dtype"])).reshape(read["shape"])
    if case.get("values") == "float32":  # ML floats tensorstore lacks: ml_dtypes' float32 values
        return np.fromfile(exp, dtype="<f4").reshape(read["shape"])
    if "bits" in case:  # bit patterns of a type tensorstore lacks (float6_*): numpy wrote them
        return np.fromfile(exp, dtype=f"<u{case['bits'] // 8}").reshape(read["shape"])
    if exp.suffix == ".json":
        values = json.loads(exp.read_text())
        return np.asarray(values, dtype=object).reshape(read["shape"])
    dt = case["data_type"]
    if dt.startswith("numpy."):
        kind = "M8" if "datetime" in dt else "m8"
        return np.fromfile(exp, dtype=f"<{kind}[{case['unit']}]").reshape(read["shape"])
    if dt == "null_terminated_bytes":  # numpy S<n>: Arrow binary without the trailing NULs
        n = case["shape"] and np.fromfile(exp, dtype=np.uint8).size // max(1, int(np.prod(read["shape"])))
        raw = np.fromfile(exp, dtype=np.uint8).reshape(-1, n)
        return np.asarray([bytes(x).rstrip(b"\0") for x in raw], dtype=object).reshape(read["shape"])
    if dt.startswith("r"):
        n = int(dt[1:]) // 8
        raw = np.fromfile(exp, dtype=np.uint8).reshape(list(read["shape"]) + [n])
        return np.asarray([bytes(x) for x in raw.reshape(-1, n)], dtype=object).reshape(read["shape"])
    if dt in NUMPY_TYPES:
        values = np.fromfile(exp, dtype=NUMPY_TYPES[dt]).reshape(read["shape"])
        return values.astype(bool) if dt == "bool" else values
    raise AssertionError(f"no expected values for {case['name']} ({dt})")


def numpy_dtype(descr):
    """A numpy dtype from its descr as JSON has it (lists for tuples)."""
    return np.dtype([(f[0], numpy_dtype(f[1]) if isinstance(f[1], list) else f[1], *[tuple(x) for x in f[2:]])
                     for f in descr])


def assert_arrow_equals_numpy(values, want, where):
    """An Arrow array of zaro's struct field shapes (docs/formats.md, "Arrow shapes") equals numpy's values."""
    n = len(want)
    assert len(values) == n, where
    if pa.types.is_struct(values.type):
        for field in values.type:
            assert_arrow_equals_numpy(values.field(field.name), want[field.name], f"{where}.{field.name}")
    elif want.ndim > 1:  # a subarray field: a FixedSizeList per dimension
        assert pa.types.is_fixed_size_list(values.type) and values.type.list_size == want.shape[1], where
        assert_arrow_equals_numpy(values.flatten(), want.reshape((n * want.shape[1],) + want.shape[2:]), where)
    elif want.dtype.kind == "c":  # complex: FixedSizeList of 2 (real, imaginary)
        assert values.type.list_size == 2, where
        np.testing.assert_array_equal(values.flatten().to_numpy(), np.stack([want.real, want.imag], -1).ravel(),
                                      err_msg=where)
    elif want.dtype.kind == "S":  # numpy S<n>: binary without trailing NULs, as numpy reads it
        assert values.to_pylist() == [bytes(x) for x in want], where
    elif want.dtype.kind == "V":
        k = want.dtype.itemsize
        raw = np.ascontiguousarray(want).tobytes()
        assert values.to_pylist() == [raw[i * k:(i + 1) * k] for i in range(n)], where
    elif want.dtype.kind == "U":
        assert values.to_pylist() == [str(x) for x in want], where
    elif want.dtype.kind in "Mm":
        # numpy's NaT is a null: to_numpy makes it NaT again
        np.testing.assert_array_equal(values.to_numpy(zero_copy_only=False).view("i8"), want.view("i8"),
                                      err_msg=where)
    else:
        np.testing.assert_array_equal(values.to_numpy(zero_copy_only=False), want, err_msg=where)


def assert_struct_column(table, want, case):
    """Tensor layout of a struct: a Struct column (1-D) or a FixedSizeList of Struct."""
    column = table.column(0).combine_chunks()
    if want.ndim == 0:
        want = want.reshape(1)
    assert len(column) == want.shape[0]
    if want.ndim > 1:
        assert pa.types.is_fixed_size_list(column.type) and column.type.list_size == want[0].size
        column, want = column.flatten(), want.reshape(-1)
    assert pa.types.is_struct(column.type)
    names = case.get("fields", list(want.dtype.names))
    assert [f.name for f in column.type] == names
    for name in names:
        assert_arrow_equals_numpy(column.field(name), want[name], name)


def stored_attributes(set_dir, case):
    """The array's attributes as its writer stored them (zarr.json, or .zattrs for v2)."""
    node = set_dir / case["store"] / case["path"].strip("/")
    if (node / "zarr.json").exists():
        return json.loads((node / "zarr.json").read_text()).get("attributes", {})
    if (node / ".zattrs").exists():
        return json.loads((node / ".zattrs").read_text())
    return {}


@pytest.mark.parametrize("set_dir,case,read", cases())
def test_read_equals_independent_writer(tmp_path, set_dir, case, read):
    fallback = case["options"].get("fallback_types", False)
    table = zaro_read(set_dir / case["store"], case["path"], read["slice"], tmp_path / "out.arrow",
                      *(["--raw-bits"] if fallback else []))
    name = case["path"].rstrip("/").split("/")[-1] if case["path"].strip("/") else "data"
    assert table.column_names == [name]
    want = expected(set_dir, case, read)
    if case["data_type"] == "struct":
        assert_struct_column(table, want, case)
        return
    got = to_numpy(table, case["data_type"])
    if case.get("values") == "float32":  # ML floats: float32 values, the stored type named
        assert table.schema.field(0).metadata[b"zarr.data_type"] == case["data_type"].encode()
        assert got.dtype == np.float32
    if fallback:  # bfloat16, float8_*: zaro gives the bit patterns, named in the field metadata
        metadata = dict(table.schema.field(0).metadata)
        # beside the array's attributes as its writer stored them (the tensor layout's contract)
        assert json.loads(metadata.pop(b"zarr.attributes", b"{}")) == stored_attributes(set_dir, case)
        assert metadata == {b"zarr.data_type": case["data_type"].encode()}
        assert got.dtype == np.dtype(f"<u{case['bits'] // 8}")
        np.testing.assert_array_equal(got, np.ascontiguousarray(want).view(got.dtype))
        return
    if case["data_type"] == "bytes":
        want = np.vectorize(lambda s: s.encode("latin-1"), otypes=[object])(want)
    if want.ndim == 0:  # a 0-d array is one row (before complex adds its trailing dimension of 2)
        want = want.reshape(1)
    if np.iscomplexobj(want):
        want = np.stack([want.real, want.imag], axis=-1)
    assert got.shape == want.shape
    if want.dtype.kind in "Mm":
        np.testing.assert_array_equal(got.astype(want.dtype).view("i8"), want.view("i8"))
    elif want.dtype.kind == "f":
        np.testing.assert_array_equal(got.view(want.dtype) if got.dtype != want.dtype else got, want)
    else:
        assert (np.asarray(got) == np.asarray(want)).all()


def sample_array(name):
    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / name)}}).result().read().result()


def test_sample_tensor_layout(tmp_path):
    table = zaro_read(SAMPLE, "t2m", "0:24, :, :", tmp_path / "t.arrow")
    column = table.column("t2m").combine_chunks()
    assert isinstance(column, pa.FixedShapeTensorArray)
    assert column.type.dim_names == ["lat", "lon"]
    np.testing.assert_array_equal(column.to_numpy_ndarray(), sample_array("t2m")[0:24])


def test_sample_table_layout_applies_cf(tmp_path):
    table = zaro_read(SAMPLE, "precip", "40:42, 60:62, 30:50", tmp_path / "p.arrow", "--layout", "table")
    assert table.column_names == ["time", "lat", "lon", "precip"]
    raw = sample_array("precip")[40:42, 60:62, 30:50]
    time = sample_array("time")[40:42]
    lat = sample_array("lat")[60:62]
    lon = sample_array("lon")[30:50]
    tt, la, lo = np.meshgrid(time, lat, lon, indexing="ij")
    epoch = np.datetime64("2020-01-01T00:00:00", "us")
    want_time = epoch + (tt.ravel() * 3600 * 10**6).astype("timedelta64[us]")
    assert table.schema.field("time").type == pa.timestamp("us")
    np.testing.assert_array_equal(table.column("time").to_numpy(), want_time)
    np.testing.assert_array_equal(table.column("lat").to_numpy(), la.ravel())
    np.testing.assert_array_equal(table.column("lon").to_numpy(), lo.ravel())
    values = table.column("precip").to_pylist()
    for v, r in zip(values, raw.ravel()):
        if r == -32768:
            assert v is None
        else:
            assert v == pytest.approx(r * 0.01 + 0.0)
    assert any(v is None for v in values) and any(v is not None for v in values)
    raw_table = zaro_read(SAMPLE, "precip", "40:42, 60:62, 30:50", tmp_path / "r.arrow", "--layout", "table", "--raw")
    np.testing.assert_array_equal(raw_table.column("precip").to_numpy(), raw.ravel())


@pytest.mark.parametrize("codec", ["zstd", "lz4"])
def test_compressed_file_equals_tensorstore_and_is_smaller(tmp_path, codec):
    """`read --compression`: Arrow IPC buffer compression, which pyarrow reads without being told;
    the values equal tensorstore's, in both layouts, and the file is smaller than uncompressed."""
    plain = tmp_path / "plain.arrow"
    packed = tmp_path / f"{codec}.arrow"
    zaro_read(SAMPLE, "t2m", "", plain)
    table = zaro_read(SAMPLE, "t2m", "", packed, "--compression", codec)
    np.testing.assert_array_equal(table.column("t2m").combine_chunks().to_numpy_ndarray(), sample_array("t2m"))
    assert packed.stat().st_size < plain.stat().st_size
    rows = zaro_read(SAMPLE, "precip", "0:4", tmp_path / "t.arrow", "--layout", "table", "--raw",
                     "--compression", codec)
    np.testing.assert_array_equal(rows.column("precip").to_numpy(), sample_array("precip")[0:4].ravel())


@pytest.mark.parametrize("args,message", [
    (["t2m", "--compression", "gzip"], "--compression: compression must be"),
    (["nope"], "no array or group at '/nope'"),
    (["t2m", "--slice", "0:99"], "stop 99 is out of range"),
    (["t2m", "--slice", "1:2:0"], "step must be positive"),
])
def test_bad_input_exits_nonzero_without_output(tmp_path, args, message):
    out = tmp_path / "x.arrow"
    result = subprocess.run([ZARO, "read", str(SAMPLE), *args, "--out", str(out)], capture_output=True, text=True,
                            env=ENV)
    assert result.returncode != 0
    assert message in result.stderr
    assert "Exception" not in result.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_ml_floats_are_float32_values_or_bits_when_asked(tmp_path):
    """bfloat16 (tensorstore wrote it) reads as float32 values equal to ml_dtypes' widening of
    tensorstore's values; --raw-bits (and its old name --fallback-types) gives the uint16 bit
    patterns, which view as ml_dtypes.bfloat16."""
    import ml_dtypes
    store = ROOT / "testdata" / "fallback" / "stores" / "bfloat16.zarr"
    want = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(store)}}).result()[1:7, 2:12].read().result()
    table = zaro_read(store, "/", "1:7, 2:12", tmp_path / "v.arrow")
    got = table.column(0).combine_chunks().to_numpy_ndarray()
    assert got.dtype == np.float32
    assert table.schema.field(0).metadata[b"zarr.data_type"] == b"bfloat16"
    np.testing.assert_array_equal(got, want.astype(np.float32))
    assert np.isnan(got[:, -1]).all()  # the fill value "NaN" of the unwritten chunks
    for flag in ["--raw-bits", "--fallback-types"]:
        table = zaro_read(store, "/", "1:7, 2:12", tmp_path / "b.arrow", flag)
        bits = table.column(0).combine_chunks().to_numpy_ndarray().view(ml_dtypes.bfloat16)
        assert bits.dtype == want.dtype
        np.testing.assert_array_equal(bits.view(np.uint16), want.view(np.uint16))


