"""Fixtures shared by the Flight test files."""
import numpy as np
import pytest
import tensorstore as ts


@pytest.fixture(scope="session")
def big(tmp_path_factory):
    """float32 [4096, 256, 256], zstd, chunks [16, 128, 128], fill value 1.5, of which tensorstore
    wrote rows 0:256 (64 MiB of random values, returned with the path): a client that stops
    reading a stream of the whole array (1 GiB) cannot have buffered it all, so the server keeps
    that stream, and its memory, for as long as the test likes."""
    path = tmp_path_factory.mktemp("big") / "big.zarr"
    values = np.random.default_rng(7).standard_normal((256, 256, 256), dtype=np.float32).round(2)
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                 "metadata": {"shape": [4096, 256, 256], "data_type": "float32",
                              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16, 128, 128]}},
                              "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                         {"name": "zstd", "configuration": {"level": 1}}],
                              "fill_value": 1.5}}, create=True).result()
    t[0:256].write(values).result()
    return path, values
