"""Compressed Flight streams: a do_get that asks for "compression": "zstd" or "lz4" carries Arrow
IPC buffer compression, which pyarrow decodes without being told; the values equal what
tensorstore reads, and the body bytes the server sent (its `stats` action) are fewer than those
of the uncompressed stream of the same slice."""
import json

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest

from zaro_server import Server

SLICE = "0:64"


def read(client, compression=None):
    command = {"array": "/", "slice": SLICE}
    if compression:
        command["compression"] = compression
    info = client.get_flight_info(fl.FlightDescriptor.for_command(json.dumps(command)))
    parts = [client.do_get(e.ticket).read_all().column(0).combine_chunks().to_numpy_ndarray()
             for e in info.endpoints]
    return np.concatenate(parts)


@pytest.fixture(scope="module")
def served(big):
    path, values = big
    with Server(path) as s:
        yield s, fl.connect(s.uri), values


def sent(s, client, compression):
    before = s.stats(client)["stream_body_bytes"]
    got = read(client, compression)
    return got, s.stats(client)["stream_body_bytes"] - before


@pytest.mark.parametrize("compression", ["zstd", "lz4"])
def test_compressed_streams_equal_values_in_fewer_bytes(served, compression):
    s, client, values = served
    plain, plain_bytes = sent(s, client, None)
    packed, packed_bytes = sent(s, client, compression)
    np.testing.assert_array_equal(plain, values[:64])
    np.testing.assert_array_equal(packed, values[:64])
    assert plain_bytes >= values[:64].nbytes
    # values rounded to 2 decimals compress, but far from 2x; fewer bytes is the contract
    assert packed_bytes < plain_bytes, (compression, packed_bytes, plain_bytes)
    print(f"\n{compression}: {packed_bytes} body bytes for {plain_bytes} uncompressed")


def test_an_unknown_codec_is_an_invalid_argument(served):
    s, client, _ = served
    with pytest.raises(pa.ArrowInvalid) as e:  # pyarrow raises INVALID_ARGUMENT so
        read(client, "brotli")
    assert "brotli" in str(e.value)
