"""Writes the blosc frames the JMH benchmarks decode (c-blosc via numcodecs), from the same
formula values as CodecBenchmarks: benchmarks/data/codec/<cname>-<shuffle>-ts2.blosc (uint16,
so typesize 2). With --limit it also times c-blosc itself decoding each frame on one thread
into a reused buffer: the limits BloscBenchmarks is compared with.
"""
import pathlib
import sys
import time

import numcodecs
import numcodecs.blosc
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "data" / "codec"
# the variants BloscBenchmarks decodes: name -> (cname, shuffle)
FRAMES = {
    "lz4-shuffle-ts2": ("lz4", numcodecs.Blosc.SHUFFLE),
    "lz4-noshuffle-ts2": ("lz4", numcodecs.Blosc.NOSHUFFLE),
    "lz4-bitshuffle-ts2": ("lz4", numcodecs.Blosc.BITSHUFFLE),
    "zstd-shuffle-ts2": ("zstd", numcodecs.Blosc.SHUFFLE),
    "blosclz-shuffle-ts2": ("blosclz", numcodecs.Blosc.SHUFFLE),
}

n = 256
z, y, x = np.ogrid[0:n, 0:n, 0:n]
values = ((x + (y * y) // 32 + z.astype(np.int64) ** 3) % 65536).astype("<u2")
OUT.mkdir(parents=True, exist_ok=True)
numcodecs.blosc.set_nthreads(1)
for name, (cname, shuffle) in FRAMES.items():
    blosc = numcodecs.Blosc(cname=cname, clevel=5, shuffle=shuffle, blocksize=0)
    frame = blosc.encode(values)
    (OUT / f"{name}.blosc").write_bytes(frame)
    if "--limit" not in sys.argv:
        print(OUT / f"{name}.blosc")
        continue
    out = np.empty_like(values)
    times = []
    for i in range(25):
        t0 = time.perf_counter()
        blosc.decode(frame, out=out)
        if i >= 5:
            times.append(time.perf_counter() - t0)
    assert np.array_equal(out, values)
    print(f"c-blosc (numcodecs {numcodecs.__version__}, 1 thread) {name}: {np.median(times) * 1e3:.2f} ms")
