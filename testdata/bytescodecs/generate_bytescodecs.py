"""numcodecs' encodings of the payloads AbstractBytesCodecTest decodes, for the bytes codecs whose
contract tests take their encoder from here (shuffle, base64, fletcher32, jenkins_lookup3, zfpy;
crc32 and adler32 are framed by the JDK's checksums in ChecksumContractTest).

The payloads are rebuilt exactly as the Java test builds them (testdata/contract_payloads.py), and
each is named by the SHA-256 of its bytes, so the Java side finds the encoding of whatever payload
it holds and fails on one it lacks.

  <codec>/<sha256>.bin.gz   numcodecs' full output (shuffle, base64, zfpy)
  checksums.json            per checksum codec and payload: the 4 bytes numcodecs adds and where
                            (the generator checks the output is exactly data plus those 4 bytes)

Run from the repository root with the .venv (numcodecs 0.16) for the numcodecs codecs; zfpy
comes from Debian's python3-zfpy, so rerun with /usr/bin/python3 for it (each interpreter writes
only what it can, deleting only its own outputs):
  .venv/bin/python testdata/bytescodecs/generate_bytescodecs.py
  /usr/bin/python3 testdata/bytescodecs/generate_bytescodecs.py
"""

import gzip
import hashlib
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from contract_payloads import suite_payloads  # noqa: E402
def name(data):
    return hashlib.sha256(data).hexdigest()


def write_full(directory, encode, fits):
    out = os.path.join(HERE, directory)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for data in suite_payloads():
        if fits(data):
            with gzip.GzipFile(os.path.join(out, name(data) + ".bin.gz"), "wb", mtime=0) as f:
                f.write(encode(data))


def numcodecs_outputs():
    import numcodecs
    from numcodecs import Base64, JenkinsLookup3, Shuffle
    from numcodecs.fletcher32 import Fletcher32

    # shuffle of 4-byte elements; numcodecs drops (zeroes) a trailing partial element, and zaro
    # refuses one, so only whole-element payloads are encoded
    write_full("shuffle4", lambda d: bytes(Shuffle(elementsize=4).encode(d)), lambda d: len(d) % 4 == 0)
    write_full("base64", lambda d: bytes(Base64().encode(d)), lambda d: True)
    checksums = {
        "numcodecs.fletcher32": Fletcher32(),
        "numcodecs.jenkins_lookup3": JenkinsLookup3(initval=7, prefix=b"zaro"),
    }
    table = {"numcodecs": numcodecs.__version__}
    for key, codec in checksums.items():
        entries = {}
        for data in suite_payloads():
            enc = bytes(codec.encode(np.frombuffer(data, dtype=np.uint8)))
            assert len(enc) == len(data) + 4, key
            if enc[4:] == data:
                entries[name(data)] = {"at": "start", "checksum": enc[:4].hex()}
            else:
                assert enc[:-4] == data, key
                entries[name(data)] = {"at": "end", "checksum": enc[-4:].hex()}
        table[key] = entries
    with open(os.path.join(HERE, "checksums.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")


def zfpy_outputs():
    import zfpy

    # reversible (lossless) mode of int32 values: what numcodecs' ZFPY(mode=5) writes for an
    # int32 chunk (zfpy.compress_numpy with no tolerance, rate or precision)
    write_full(
        "zfpy_int32",
        lambda d: zfpy.compress_numpy(np.frombuffer(d, dtype="<i4").copy()),
        lambda d: len(d) % 4 == 0,
    )


if __name__ == "__main__":
    try:
        numcodecs_outputs()
    except ImportError as e:
        print("numcodecs outputs skipped:", e)
    try:
        zfpy_outputs()
    except ImportError as e:
        print("zfpy outputs skipped:", e)
