"""The payloads AbstractBytesCodecTest passes to encode(), rebuilt in Python for the generators
that write numcodecs' and c-blosc's encodings of them (testdata/blosc, testdata/bytescodecs)."""

import math


class JavaRandom:
    """java.util.Random, for the payloads AbstractBytesCodecTest builds."""

    def __init__(self, seed):
        self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)

    def next_int(self):
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
        r = self.seed >> 16
        return r - (1 << 32) if r >= 1 << 31 else r

    def next_bytes(self, n):
        out = bytearray(n)
        i = 0
        while i < n:
            rnd = self.next_int()
            for _ in range(min(n - i, 4)):
                out[i] = rnd & 0xFF
                rnd >>= 8
                i += 1
        return bytes(out)


def suite_payloads():
    """Every input AbstractBytesCodecTest passes to encode()."""
    yield bytes([42])
    yield bytes(4096)
    yield JavaRandom(42).next_bytes(70_000)
    yield bytes(int(math.sin(i / 500.0) * 100) & 0xFF for i in range(1 << 20))
    yield JavaRandom(1).next_bytes(1000)
    yield JavaRandom(2).next_bytes(5000)
    yield bytes(i % 251 for i in range(20000))
