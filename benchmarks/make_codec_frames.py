"""Writes the blosc frame the JMH benchmarks decode (c-blosc via numcodecs), from the same
formula values as CodecBenchmarks: benchmarks/data/codec/lz4-shuffle-ts2.blosc."""
import pathlib

import numcodecs
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "data" / "codec"
n = 256
z, y, x = np.ogrid[0:n, 0:n, 0:n]
values = ((x + (y * y) // 32 + z.astype(np.int64) ** 3) % 65536).astype("<u2")
OUT.mkdir(parents=True, exist_ok=True)
blosc = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE, blocksize=0)
(OUT / "lz4-shuffle-ts2.blosc").write_bytes(blosc.encode(values.tobytes()))
print(OUT / "lz4-shuffle-ts2.blosc")
