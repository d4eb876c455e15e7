"""Time to the first picture in the explorer (GET /arrays/{path}/image.png, docs/explorer.md):

- a 4-D climate-style array, float32 (time 24, level 10, lat 721, lon 1440), one chunk per 2-D
  field (zstd), as ERA5 on pressure levels is often chunked: the first picture reads one chunk;
- a 100,000 x 100,000 float32 array (40 GB decoded) in 1000 x 1000 chunks of which only a band is
  written (the rest is fill: "lazily chunked"), drawn strided to 1024 x 1024;
- the same shape with every chunk written would decode 40 GB for any strided picture; instead a
  20,000 x 20,000 array (1.6 GB, 400 chunks, all written) shows what a dense picture costs.

  .venv/bin/python benchmarks/explorer_picture.py   (writes benchmarks/data/explorer/, ~1 GB)

Prints one line per picture: seconds for the first request (cold server) and the median of 5
more. Numbers in benchmarks/README.md, "Explorer pictures"."""
import pathlib
import statistics
import sys
import time
import urllib.parse
import urllib.request

import numpy as np
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "python"))
from zaro_server import Server  # noqa: E402

DATA = HERE / "data" / "explorer"
ZSTD = [{"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "zstd", "configuration": {"level": 1, "checksum": False}}]


def create(path, shape, chunks, dims):
    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(DATA / path)},
                    "metadata": {"shape": shape, "data_type": "float32", "fill_value": "NaN",
                                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                                 "codecs": ZSTD, "dimension_names": dims, "attributes": {"units": "K"}}},
                   create=True, delete_existing=True).result()


def field(ny, nx, seed):
    y, x = np.meshgrid(np.linspace(-1, 1, ny), np.linspace(-1, 1, nx), indexing="ij")
    return (280 + 20 * np.sin(3 * x + seed) * np.cos(2 * y)).astype(np.float32)


def make():
    if (DATA / "done").exists():
        return
    DATA.mkdir(parents=True, exist_ok=True)
    era = create("era.zarr", [24, 10, 721, 1440], [1, 1, 721, 1440], ["time", "level", "lat", "lon"])
    for t in range(2):  # the first pictures read these; the rest stay fill
        era[t].write(np.stack([field(721, 1440, t + lev) for lev in range(10)])).result()
    big = create("big.zarr", [100_000, 100_000], [1000, 1000], ["y", "x"])
    big[:1000, :].write(np.tile(field(1000, 1000, 0), (1, 100))).result()  # one band of 100 chunks
    dense = create("dense.zarr", [20_000, 20_000], [1000, 1000], ["y", "x"])
    for i in range(20):
        dense[i * 1000:(i + 1) * 1000, :].write(np.tile(field(1000, 1000, i), (1, 20))).result()
    (DATA / "done").write_text("ok\n")


def timed(url):
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        r.read()
    return time.perf_counter() - t0


def tensorstore_seconds(store, index):
    """tensorstore reading the elements the picture draws (the same strided selection), cache off."""
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(DATA / store)},
                 "context": {"cache_pool": {"total_bytes_limit": 0},
                             "data_copy_concurrency": {"limit": 2}, "file_io_concurrency": {"limit": 2}}}).result()
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        t[index].read().result()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main():
    make()
    # (store, slice, the same elements as numpy indexing: what the picture draws at max_size 1024)
    pictures = [("era.zarr", "0, 0, :, :", np.s_[0, 0, :, :]),
                ("big.zarr", ":, :", np.s_[::98, ::98]),
                ("dense.zarr", ":, :", np.s_[::20, ::20])]
    for store, slice_, index in pictures:
        with Server(DATA / store, "--http-port", "0") as s:
            url = f"{s.http}/arrays/image.png?slice=" + urllib.parse.quote(slice_)
            first = timed(url)
            again = statistics.median(timed(url) for _ in range(5))
        print(f"{store:12s} [{slice_}]  picture: first {first:.3f} s, median of 5 more {again:.3f} s;"
              f"  tensorstore reading the same elements: {tensorstore_seconds(store, index):.3f} s")


if __name__ == "__main__":
    main()
