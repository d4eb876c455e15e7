#!/usr/bin/env python3
"""Writes the blosc test fixtures: frames encoded by c-blosc 1.x, never by zaro.

Run from the repository root with the project's venv (numcodecs, numpy, tensorstore):

    .venv/bin/python testdata/blosc/generate_blosc.py

numcodecs' bundled c-blosc writes blosclz, lz4, lz4hc, zlib and zstd frames; it lacks snappy,
so snappy frames come from tensorstore's c-blosc (a zarr v3 array with a blosc codec, whose
stored chunk is the frame).

Outputs (the directory is rewritten from scratch):

  cases/<cname>-<shuffle>-ts<typesize>-<kind>.blosc   a c-blosc frame
  cases/<cname>-<shuffle>-ts<typesize>-<kind>.raw     the bytes it encodes
      typesizes 1, 2, 3, 4, 8, 12, 24, 255; element counts below are for typesize <= 16 (wider
      elements use fewer: see case_inputs)
      kinds: tiny    61 bytes: c-blosc stores it memcpyed (under 128 bytes)
             odd     133 elements + 1 byte: blocks split per byte where c-blosc splits, a
                     bit-shuffle element count not a multiple of 8, a 1-byte last block
             even8   136 elements, split even for zstd (BLOSC_SPLITMODE=ALWAYS) where the
                     typesize allows it
             blocks  forced small blocksize, never split: 2 full blocks + a short last block
                     of 40 elements + 1 byte
             mixed   smooth, random, smooth blocks (typesize 1, 2, 4): the random block's
                     stream is stored raw
             clevel0 clevel 0: memcpyed although shuffle is set (typesize 4)
             empty   0 bytes (typesize 4; not snappy)
  suite/<variant>/<sha256 of the input, 16 hex>.blosc
      the inputs AbstractBytesCodecTest encodes (its java.util.Random payloads, re-created
      here bit for bit), compressed by c-blosc with each variant's settings; the Java test
      finds a frame by the hash of the bytes it wants encoded.

With --bench DIR it instead writes DIR/bench-lz4-shuffle-u16-{smooth,rough}.blosc (+ .raw),
64 MiB of uint16 each, for BloscThroughput, and prints c-blosc's own single-thread decode speed.
"""

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import numcodecs.blosc as nblosc
import tensorstore as ts

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from contract_payloads import suite_payloads  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SHUFFLES = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}
CNAMES = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]
TYPESIZES = [1, 2, 3, 4, 8, 12, 24, 255]

# Route numcodecs through blosc_compress (the global-context API), which reads
# BLOSC_SPLITMODE from the environment on every call.
nblosc.use_threads = True
nblosc.set_nthreads(1)


def c_blosc(data, cname, clevel, shuffle, typesize, blocksize=0, splitmode="FORWARD_COMPAT"):
    """A c-blosc 1.x frame of data."""
    if cname == "snappy":
        return tensorstore_blosc(data, cname, clevel, shuffle, typesize, blocksize)
    os.environ["BLOSC_SPLITMODE"] = splitmode
    frame = bytes(nblosc.compress(data, cname.encode(), clevel, SHUFFLES[shuffle], blocksize,
                                  typesize=typesize))
    if data:  # numcodecs reports c-blosc's 0 decoded bytes as an error
        assert bytes(nblosc.decompress(frame)) == bytes(data), (cname, shuffle, typesize)
    return frame


def tensorstore_blosc(data, cname, clevel, shuffle, typesize, blocksize):
    """The chunk tensorstore stores for data as a 1-d uint8 zarr v3 array with one blosc codec."""
    n = len(data)
    with tempfile.TemporaryDirectory() as tmp:
        spec = {
            "driver": "zarr3",
            "kvstore": {"driver": "file", "path": tmp + "/"},
            "store_data_equal_to_fill_value": True,
            "metadata": {
                "shape": [n],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [n]}},
                "data_type": "uint8",
                "codecs": [{"name": "bytes"}, {"name": "blosc", "configuration": {
                    "cname": cname, "clevel": clevel, "shuffle": shuffle, "typesize": typesize,
                    "blocksize": blocksize}}],
            },
        }
        arr = ts.open(spec, create=True).result()
        arr[...] = np.frombuffer(bytes(data), dtype=np.uint8)
        with open(os.path.join(tmp, "c", "0"), "rb") as f:
            frame = f.read()
        assert bytes(arr.read().result()) == bytes(data)
    return frame


def smooth(elements, typesize, phase=0.0):
    """Compressible little-endian elements: a slow staircase plus a coarse wave."""
    i = np.arange(elements, dtype=np.float64)
    words = []
    for w in range((typesize + 7) // 8):
        v = 2.0 ** 40 + np.floor(i / 6.0) + 64.0 * np.round(4.0 * np.sin(i / 41.0 + phase + w)) + 977.0 * w
        words.append(v.astype(np.uint64))
    wide = np.stack(words, axis=1).astype("<u8").view(np.uint8).reshape(elements, -1)
    return wide[:, :typesize].tobytes()


def noise(n, seed):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


def case_inputs(t, cname):
    """(kind, data, clevel, blocksize, splitmode) for typesize t."""
    tail = b"\x7f" if t > 1 else b""
    unsplit = t > 16  # c-blosc never splits typesize > 16
    # element counts: odd (not a multiple of 8), even8, elements per block, elements in the last
    # block; fewer for wide elements to keep the fixtures small
    odd, even8, per_block, last = (133, 136, 128, 40) if t <= 16 else (21, 24, 8, 8) if t <= 64 else (5, 8, 2, 8)
    yield "tiny", smooth(61 // t + 1, t)[:61], 5, 0, "FORWARD_COMPAT"
    yield "odd", smooth(odd, t) + tail, 5, 0, "FORWARD_COMPAT"
    yield "even8", smooth(even8, t), 5, 0, "FORWARD_COMPAT" if unsplit else "ALWAYS"
    bs = per_block * t
    yield "blocks", smooth(2 * per_block + last, t, 1.0) + tail, 5, bs, "NEVER"
    if t in (1, 2, 4):
        yield "mixed", smooth(bs // t, t, 2.0) + noise(bs, t) + smooth(bs // t, t, 3.0), 5, bs, "NEVER"
    if t == 4:
        yield "clevel0", smooth(60, t), 0, 0, "FORWARD_COMPAT"
        if cname != "snappy":  # tensorstore has no empty chunks
            yield "empty", b"", 5, 0, "FORWARD_COMPAT"


def write_cases(out):
    os.makedirs(out)
    for cname in CNAMES:
        for shuffle in SHUFFLES:
            for t in TYPESIZES:
                for kind, data, clevel, bs, mode in case_inputs(t, cname):
                    name = f"{cname}-{shuffle}-ts{t}-{kind}"
                    frame = c_blosc(data, cname, clevel, shuffle, t, bs, mode)
                    with open(os.path.join(out, name + ".blosc"), "wb") as f:
                        f.write(frame)
                    with open(os.path.join(out, name + ".raw"), "wb") as f:
                        f.write(data)


# variant -> (cname, clevel, shuffle, typesize, blocksize, splitmode); the Java suite classes
# name these.
SUITE_VARIANTS = {
    # split blocks of 512 KiB (lz4 splits by default in c-blosc's FORWARD_COMPAT mode)
    "lz4-shuffle-ts4": ("lz4", 5, "shuffle", 4, 0, "FORWARD_COMPAT"),
    # split blocks of 150000 bytes (c-blosc multiplies a forced blocksize by typesize for split
    # codecs), and a short last block of 148576 bytes that is not split
    "blosclz-shuffle-ts3-split": ("blosclz", 5, "shuffle", 3, 50000, "FORWARD_COMPAT"),
    # unsplit 16 KiB blocks
    "zstd-bitshuffle-ts1-bs16k": ("zstd", 5, "bitshuffle", 1, 16384, "FORWARD_COMPAT"),
    "snappy-shuffle-ts2": ("snappy", 5, "shuffle", 2, 0, "FORWARD_COMPAT"),
}


def write_suite(out):
    payloads = list(suite_payloads())
    for variant, (cname, clevel, shuffle, t, bs, mode) in SUITE_VARIANTS.items():
        d = os.path.join(out, variant)
        os.makedirs(d)
        for data in payloads:
            key = hashlib.sha256(data).hexdigest()[:16]
            with open(os.path.join(d, key + ".blosc"), "wb") as f:
                f.write(c_blosc(data, cname, clevel, shuffle, t, bs, mode))


def write_bench(out):
    """64 MiB of uint16, lz4 + byte-shuffle: smooth (a slow wave) and rough (plus a fast ripple)."""
    os.makedirs(out, exist_ok=True)
    n = 32 << 20
    i = np.arange(n, dtype=np.float64)
    waves = {
        "smooth": 30000 + 20000 * np.sin(i / 200000.0) + 200 * np.sin(i / 1000.0),
        "rough": 30000 + 20000 * np.sin(i / 200000.0) + 300 * np.sin(i / 37.0),
    }
    for label, values in waves.items():
        data = values.astype("<u2").tobytes()
        nblosc.use_threads = True
        frame = c_blosc(data, "lz4", 5, "shuffle", 2)
        base = os.path.join(out, f"bench-lz4-shuffle-u16-{label}")
        with open(base + ".blosc", "wb") as f:
            f.write(frame)
        with open(base + ".raw", "wb") as f:
            f.write(data)
        print(f"{base}.blosc: {len(frame)} bytes for {len(data)} ({len(data) / len(frame):.2f}x),"
              f" header {frame[:16].hex()}")
        nblosc.use_threads = False
        times = sorted(timed(lambda: nblosc.decompress(frame)) for _ in range(15))
        print(f"  c-blosc {nblosc.VERSION_STRING} (numcodecs, 1 thread) decode: median"
              f" {len(data) / times[len(times) // 2] / 1e9:.2f} GB/s, best {len(data) / times[0] / 1e9:.2f} GB/s")
    buf = np.frombuffer(data, dtype=np.uint8)
    dst = np.empty_like(buf)
    best = min(timed(lambda: np.copyto(dst, buf)) for _ in range(10))
    print(f"numpy copy: {len(data) / best / 1e9:.2f} GB/s")


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", metavar="DIR", help="write the 64 MiB throughput frame to DIR instead")
    args = parser.parse_args()
    if args.bench:
        write_bench(args.bench)
        return
    for sub in ("cases", "suite"):
        shutil.rmtree(os.path.join(HERE, sub), ignore_errors=True)
    write_cases(os.path.join(HERE, "cases"))
    write_suite(os.path.join(HERE, "suite"))
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(HERE) for f in fs)
    print(f"wrote {HERE}: {total} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
