"""Writes benchmark datasets with tensorstore into benchmarks/data/ (not committed).

Values follow a formula any reader can check: (x + y*y//32 + z**3) % 65536 as uint16, where
z, y, x are the indices of the three dimensions.

  .venv/bin/python benchmarks/make_datasets.py [--size 512] [--only NAME ...]
"""
import argparse
import pathlib

import numpy as np
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data"

BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


def datasets(n):
    c = n // 2
    return {
        "zstd": ([c, c, c], [BYTES, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}]),
        "raw": ([c, c, c], [BYTES]),
        # many small objects (512 of 64^3 at n=512): what object-store reads are made of
        "zstd_64": ([n // 8] * 3, [BYTES, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}]),
        "gzip": ([c, c, c], [BYTES, {"name": "gzip", "configuration": {"level": 5}}]),
        "sharded_zstd": ([c, c, c], [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [c // 4] * 3,
            "codecs": [BYTES, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
            "index_codecs": [BYTES, {"name": "crc32c"}], "index_location": "end"}}]),
        "blosc_lz4": ([c, c, c], [BYTES, {"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}}]),
        "sharded_128_32": ([n // 4] * 3, [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [n // 16] * 3,
            "codecs": [BYTES, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}],
            "index_codecs": [BYTES, {"name": "crc32c"}], "index_location": "end"}}]),
        "noisy_zstd": ([c, c, c], [BYTES, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}]),
        # Zarr v2 (tensorstore's zarr driver): the blosc-lz4-shuffle data as most v2 data is stored
        "v2_blosc": ([c, c, c], {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}),
    }


def formula(n):
    z, y, x = np.ogrid[0:n, 0:n, 0:n]
    return ((x + (y * y) // 32 + z.astype(np.int64) ** 3) % 65536).astype(np.uint16)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    n = args.size
    values = formula(n)
    for name, (chunks, codecs) in datasets(n).items():
        if args.only and name not in args.only:
            continue
        path = DATA / f"{name}_{n}.zarr"
        if name.startswith("v2_"):
            spec = {"driver": "zarr", "kvstore": {"driver": "file", "path": str(path)},
                    "metadata": {"shape": [n, n, n], "dtype": "<u2", "chunks": chunks, "compressor": codecs,
                                 "fill_value": 0, "order": "C", "filters": None}}
        else:
            spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
                    "metadata": {"shape": [n, n, n], "data_type": "uint16",
                                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                                 "codecs": codecs, "fill_value": 0}}
        t = ts.open(spec, create=True, delete_existing=True).result()
        data = values
        if name == "noisy_zstd":
            # low compressibility: random low bits (deterministic), reader checks use the formula ^ noise
            rng = np.random.default_rng(0)
            data = values ^ rng.integers(0, 256, values.shape, dtype=np.uint16)
        t.write(data).result()
        print(path)


if __name__ == "__main__":
    main()
