"""Writes the blosc frame the JMH benchmarks decode (c-blosc via numcodecs), from the same
formula values as CodecBenchmarks: benchmarks/data/codec/lz4-shuffle-ts2.blosc (uint16, so
typesize 2 and a real byte shuffle). With --limit it also times c-blosc itself decoding that
frame on one thread into a reused buffer: the limit bloscLz4ShuffleZaro is compared with."""
import pathlib
import sys
import time

import numcodecs
import numcodecs.blosc
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "data" / "codec"
n = 256
z, y, x = np.ogrid[0:n, 0:n, 0:n]
values = ((x + (y * y) // 32 + z.astype(np.int64) ** 3) % 65536).astype("<u2")
OUT.mkdir(parents=True, exist_ok=True)
blosc = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE, blocksize=0)
frame = blosc.encode(values)
(OUT / "lz4-shuffle-ts2.blosc").write_bytes(frame)
print(OUT / "lz4-shuffle-ts2.blosc")
if "--limit" in sys.argv:
    numcodecs.blosc.set_nthreads(1)
    out = np.empty_like(values)
    times = []
    for i in range(25):
        t0 = time.perf_counter()
        blosc.decode(frame, out=out)
        if i >= 5:
            times.append(time.perf_counter() - t0)
    assert np.array_equal(out, values)
    print(f"c-blosc (numcodecs {numcodecs.__version__}, 1 thread) decodes it in {np.median(times) * 1e3:.2f} ms")
