"""Outer and vectorized indexing through the xarray backend: index lists go to the server, which
reads only the chunks holding them and sends only the selected elements. Expected values: numpy
indexing of what xr.open_zarr (Debian's xarray and zarr-python 2.13) read from the store xarray
wrote (testdata/xarray_client/generate_era5.py)."""
import json

import numpy as np
import pytest
import xarray as xr

import zaro_client
from test_xarray_backend import expected_dataset, server  # noqa: F401 (fixture)


def decoded():
    """What open_zarr read raw, decoded by this xarray (Debian's unpacks int16 to float32)."""
    return xr.decode_cf(expected_dataset("era5.raw")[0])


INDEXERS = [
    {"time": [0, 47], "latitude": [0, 4, 9]},
    {"time": [30, 2, 2, 47], "longitude": [11, 0]},            # unsorted, repeated
    {"time": slice(3, 30, 4), "latitude": [-1, 0], "longitude": 5},
    {"time": []},
]


@pytest.mark.parametrize("indexers", INDEXERS, ids=str)
def test_outer_indexing_equals_numpy(server, indexers):
    want = decoded()
    ds = xr.open_dataset(server.uri, engine="zaro")
    for var in ["t2m", "msl"]:
        got = ds[var].isel(indexers)
        np.testing.assert_array_equal(got.values, want[var].isel(indexers).values)


def test_vectorized_indexing_equals_numpy(server):
    want = decoded()
    ds = xr.open_dataset(server.uri, engine="zaro")
    points = {"time": xr.DataArray([1, 40, 7], dims="p"), "latitude": xr.DataArray([2, 9, 0], dims="p"),
              "longitude": xr.DataArray([5, 5, 11], dims="p")}
    np.testing.assert_array_equal(ds.t2m.isel(points).values, want.t2m.isel(points).values)
    labels = {"time": ["2020-01-01T03:00", "2020-01-02T23:00"], "latitude": [90.0, -90.0]}
    np.testing.assert_array_equal(ds.t2m.sel(labels).values, want.t2m.sel(labels).values)


@pytest.mark.parametrize("shared", [False, True], ids=["do_get", "shared_memory"])
def test_list_indexing_sends_only_the_chunks_holding_the_indices(server, shared):
    counter = "shared_memory_bytes" if shared else "stream_body_bytes"
    with zaro_client.connect(server.uri) as c:
        c.shared_memory = shared
        c.shared_min_bytes = 0  # this fixture's reads are small: through the file all the same
        ds = xr.open_dataset(c, engine="zaro")
        before = c.stats()[counter]
        got = ds.t2m.isel(time=[0, 47], latitude=[0, 4, 9]).values
        sent = c.stats()[counter] - before
    assert got.shape == (2, 3, 12)
    # the bounding box would be 48 x 10 x 12 float32 (23 KiB); the selection is 2 x 3 x 12
    assert got.nbytes <= sent <= got.nbytes + 1024, sent


def test_read_with_index_lists_and_decode(server):
    raw, _ = expected_dataset("era5.raw")
    with zaro_client.connect(server.uri) as c:
        np.testing.assert_array_equal(c.read("t2m", "[3,1], 2, :", decode=True),
                                      xr.decode_cf(raw).t2m.values[[3, 1], 2, :])
        np.testing.assert_array_equal(c.read("msl", "[-1,0], [2], [0,0]"),
                                      raw.msl.values[np.ix_([-1, 0], [2], [0, 0])])


def test_table_layout_with_index_lists_has_the_coordinate_columns(server):
    """The table layout of an outer selection: to_dataframe()'s rows at the np.ix_ positions."""
    from test_xarray_backend import EXPECTED
    columns = json.loads((EXPECTED / "era5.t2m.table.json").read_text())
    want = np.load(EXPECTED / "era5.t2m.table.npz")
    lists = ([47, 0, 0, 30], [3, 1], [2, 3, 4])
    with zaro_client.connect(server.uri) as c:
        got = c.read_table("t2m", "[47,0,0,30], [3,1], 2:5")
    assert got.column_names == columns
    for name in columns:
        expected = want[name].reshape(48, 10, 12)[np.ix_(*lists)].ravel()
        values = got.column(name).to_numpy(zero_copy_only=False)
        if name == "t2m":
            np.testing.assert_array_equal(np.where(got.column(name).is_null().to_numpy(zero_copy_only=False), np.nan, values), expected)
        else:
            np.testing.assert_array_equal(values.astype(expected.dtype), expected, err_msg=name)
