"""Same-machine reads through a shared-memory file (the server's do_exchange of a read command):
values equal to what do_get and xarray give, writable results, no file left behind however the
exchange ends, and a read by do_get whenever the file cannot be used.

Expected values: xr.open_zarr(decode_cf=False) run by Debian's xarray and zarr-python 2.13 on the
store they wrote (testdata/xarray_client/generate_era5.py wrote era5.zarr and expected/era5.raw.*),
and numpy indexing of those arrays. Nothing expected here is produced by zaro.
"""
import glob
import json
import os
import time

import numpy as np
import pyarrow.flight as fl
import pytest

import zaro_client
from zaro_client import client as client_module
from zaro_server import ROOT, Server

STORE = ROOT / "testdata" / "xarray_client" / "era5.zarr"
EXPECTED = ROOT / "testdata" / "xarray_client" / "expected"

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm on this machine")


def raw(name):
    return np.load(EXPECTED / f"era5.raw.{name}.npy")


SERVER = {}


def leftovers():
    """The files in /dev/shm of this module's server (zaro-<pid>-<random>.bin): other tests'
    servers, in other processes, make theirs at the same time."""
    return set(glob.glob(f"/dev/shm/zaro-{SERVER['pid']}-*.bin"))


@pytest.fixture(scope="module")
def server():
    with Server(STORE) as s:
        SERVER["pid"] = s.proc.pid
        yield s


@pytest.fixture()
def client(server):
    with zaro_client.connect(server.uri) as c:
        assert c.shared_memory  # a loopback URL
        c.shared_min_bytes = 0  # the fixture's arrays are small: every read goes through a file
        yield c
    assert leftovers() == set(), "a shared-memory file was left behind"


@pytest.fixture()
def exchanges(monkeypatch):
    """Counts the reads that went through shared memory, and those it handed back to do_get."""
    counts = {"shared": 0, "declined": 0}
    original = zaro_client.Client._read_shared

    def counted(self, *args):
        out = original(self, *args)
        counts["shared" if out is not None else "declined"] += 1
        return out

    monkeypatch.setattr(zaro_client.Client, "_read_shared", counted)
    return counts


# the fixture's t2m and msl are (48, 10, 12), chunked (24, 10, 12)
SELECTIONS = [
    ("t2m", "", (slice(None),)),
    ("t2m", "20:30, 2:7, 3:11", (slice(20, 30), slice(2, 7), slice(3, 11))),
    ("t2m", "47", (47,)),
    ("t2m", "[0,47], [0,5,9], :", np.ix_([0, 47], [0, 5, 9], np.arange(12))),
    ("t2m", "::7, 3, -5:", (slice(None, None, 7), 3, slice(-5, None))),
    ("msl", "0:24, :, :", (slice(0, 24),)),
    ("msl", "5, 6, 7", (5, 6, 7)),
    ("time", "", (slice(None),)),
    ("latitude", "2:8", (slice(2, 8),)),
    ("t2m", "3:3, :, :", (slice(3, 3),)),
]


@pytest.mark.parametrize("name,text,index", SELECTIONS, ids=[f"{n}[{t}]" for n, t, _ in SELECTIONS])
def test_values_equal_open_zarr(client, exchanges, name, text, index):
    want = raw(name)[index]
    got = client.read(name, text)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert exchanges == {"shared": 1, "declined": 0}


def test_small_reads_go_by_do_get(server, exchanges):
    with zaro_client.connect(server.uri) as c:
        assert c.shared_min_bytes == 512 << 10  # the default
        np.testing.assert_array_equal(c.read("t2m"), raw("t2m"))  # 23,040 bytes
        assert exchanges == {"shared": 0, "declined": 0}
        c.shared_min_bytes = 23_040
        np.testing.assert_array_equal(c.read("t2m", "47"), raw("t2m")[47])  # 480 bytes
        assert exchanges == {"shared": 0, "declined": 0}
        np.testing.assert_array_equal(c.read("t2m"), raw("t2m"))
        assert exchanges == {"shared": 1, "declined": 0}


def test_the_result_is_writable_and_private(client):
    a = client.read("t2m", "0:2")
    b = client.read("t2m", "0:2")
    assert a.flags.writeable and a.flags.c_contiguous
    a[...] = 7  # a copy-on-write mapping: the other read's values do not move
    np.testing.assert_array_equal(b, raw("t2m")[0:2])
    assert (a == 7).all()


def test_do_get_gives_the_same(client):
    shared = client.read("msl")
    client.shared_memory = False
    np.testing.assert_array_equal(client.read("msl"), shared)


def test_strings_go_by_do_get(client, exchanges):
    # fixed- and variable-length strings are not numbers in numpy's layout: no exchange at all
    got = client.read("expver")
    np.testing.assert_array_equal(got, raw("expver"))
    assert exchanges == {"shared": 0, "declined": 0}


def test_a_client_that_cannot_open_the_file_reads_by_do_get(client, exchanges, monkeypatch):
    real_open = os.open

    def refuse(path, *args, **kwargs):
        if os.path.basename(str(path)).startswith("zaro-"):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(client_module.os, "open", refuse)
    np.testing.assert_array_equal(client.read("t2m", "7"), raw("t2m")[7])
    assert exchanges == {"shared": 0, "declined": 1}


def exchange(server, command):
    """A raw exchange: (the server's offer, writer, reader)."""
    flight = fl.connect(server.uri)
    descriptor = fl.FlightDescriptor.for_command(json.dumps(command).encode())
    writer, reader = flight.do_exchange(descriptor)
    offer = json.loads(reader.read_chunk().app_metadata.to_pybytes())
    return offer, writer, reader, flight


def test_the_server_declines_the_table_layout(server):
    offer, writer, reader, flight = exchange(server, {"array": "t2m", "slice": "0", "layout": "table"})
    assert offer["shared_memory"] is None
    assert "tensor layout" in offer["reason"]
    writer.done_writing()
    assert list(reader) == []
    flight.close()


def test_the_file_is_offered_private_and_gone_after_a_no(server):
    offer, writer, reader, flight = exchange(server, {"array": "t2m", "slice": "0:2"})
    path = offer["shared_memory"]
    assert offer["bytes"] == 2 * 10 * 12 * 4 and offer["element_bytes"] == 4
    assert os.stat(path).st_mode & 0o777 == 0o600
    writer.write_metadata(json.dumps({"opened": False}).encode())
    writer.done_writing()
    assert list(reader) == []
    assert not os.path.exists(path)
    assert leftovers() == set()
    flight.close()
    flight.close()


def test_the_file_is_gone_when_the_client_leaves_without_an_answer(server):
    offer, writer, reader, flight = exchange(server, {"array": "t2m", "slice": "0:2"})
    assert os.path.exists(offer["shared_memory"])
    reader.cancel()  # the exchange is cancelled: the server's wait for the answer ends
    # the server sees the cancel on its own thread: wait for that event (a bound, not a timing)
    deadline = time.monotonic() + 60
    while leftovers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers() == set()
    flight.close()


def test_errors_name_the_array(client):
    with pytest.raises(zaro_client.NotFound, match="nope"):
        client.read("nope")
