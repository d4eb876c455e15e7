"""Reads over the wire (no shared memory) cut into parallel streams at chunk boundaries of the
first dimension: the values are those of one stream, and the streams are the parts asked for.

Expected values: xr.open_zarr(decode_cf=False) run by Debian's xarray and zarr-python 2.13 on the
store they wrote (testdata/xarray_client/generate_era5.py wrote era5.zarr and expected/era5.raw.*),
and numpy indexing of those arrays. Nothing expected here is produced by zaro.
"""
import json

import numpy as np
import pytest

import zaro_client
from zaro_server import ROOT, Server

STORE = ROOT / "testdata" / "xarray_client" / "era5.zarr"
EXPECTED = ROOT / "testdata" / "xarray_client" / "expected"


@pytest.fixture(scope="module")
def server():
    with Server(STORE) as s:
        yield s


class TicketLog:
    """Wraps a Flight client and records the slice of every do_get ticket."""

    def __init__(self, inner):
        self.inner, self.slices = inner, []

    def do_get(self, ticket, *args):
        self.slices.append(json.loads(ticket.ticket)["slice"])
        return self.inner.do_get(ticket, *args)

    def __getattr__(self, name):
        return getattr(self.inner, name)


# t2m and msl are (48, 10, 12) in chunks of (24, 10, 12): one cut, at 24
CASES = [
    ("t2m", "", (slice(None),), ["0:24:1, 0:10:1, 0:12:1", "24:48:1, 0:10:1, 0:12:1"]),
    ("t2m", "3:40, 2:5, ::2", (slice(3, 40), slice(2, 5), slice(None, None, 2)),
     ["3:24:1, 2:5:1, 0:11:2", "24:40:1, 2:5:1, 0:11:2"]),
    ("msl", "20:30, [1,9], :", np.ix_(range(20, 30), [1, 9], range(12)),
     ["20:24:1, [1,9], 0:12:1", "24:30:1, [1,9], 0:12:1"]),
    # one chunk, a step, a dropped first dimension, a list first: one stream
    ("t2m", "0:24", (slice(0, 24),), ["0:24"]),
    ("t2m", "::2", (slice(None, None, 2),), ["::2"]),
    ("t2m", "30, :, :", (30,), ["30, :, :"]),
    ("t2m", "[47,0], :, :", ([47, 0],), ["[47,0], :, :"]),
]


@pytest.mark.parametrize("name,text,index,slices", CASES, ids=[f"{c[0]}[{c[1]}]" for c in CASES])
def test_parts_are_cut_at_chunk_boundaries(server, name, text, index, slices):
    with zaro_client.connect(server.uri, shared_memory=False) as c:
        c.part_bytes = 1  # every read of two chunks or more is cut
        c._flight = TicketLog(c._flight)
        got = c.read(name, text)
    want = np.load(EXPECTED / f"era5.raw.{name}.npy")[index]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert sorted(c._flight.slices) == sorted(slices)


def test_small_reads_stay_one_stream(server):
    with zaro_client.connect(server.uri, shared_memory=False) as c:
        c._flight = TicketLog(c._flight)
        c.read("t2m")  # 23 KiB: under twice part_bytes
    assert c._flight.slices == [""]
