"""`zaro serve` in production: TLS (and client certificates), bearer tokens, the memory budget
and stream slots, and graceful shutdown, with pyarrow.flight as the client.

Certificates are made here with `openssl` (a test CA, a server and a client certificate), in a
temporary directory; no key is committed. Expected values come from tensorstore reading the
fixture.
"""
import json
import subprocess
import time

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pytest
import tensorstore as ts

from zaro_server import ROOT, ZARO, Server

STORE = ROOT / "testdata" / "sharding" / "stores" / "end_zstd.zarr"
TOKEN = b"s3cret-token-for-tests"


def expected():
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(STORE)}}).result()
    return t.read().result()


def fetch_all(client, options=None):
    info = client.get_flight_info(fl.FlightDescriptor.for_path("/"), options)
    parts = [client.do_get(e.ticket, options).read_all().column(0).combine_chunks().to_numpy_ndarray()
             for e in info.endpoints]
    return np.concatenate(parts)


def bearer(token):
    return fl.FlightCallOptions(headers=[(b"authorization", b"Bearer " + token)])


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")

    def run(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=zaro test CA")
    for name, ext in [("server", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth"),
                      ("client", "extendedKeyUsage=clientAuth"), ("stranger", "extendedKeyUsage=clientAuth")]:
        (d / f"{name}.ext").write_text(ext + "\n")
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
            "-subj", f"/CN={name}")
        if name == "stranger":  # signed by itself, not by the CA
            run("x509", "-req", "-in", f"{name}.csr", "-signkey", f"{name}.key", "-out", f"{name}.pem",
                "-days", "2", "-extfile", f"{name}.ext")
        else:
            run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext")
    return d


@pytest.fixture(scope="module")
def tokens(tmp_path_factory):
    f = tmp_path_factory.mktemp("tokens") / "tokens.txt"
    f.write_bytes(b"another-token\n\n  " + TOKEN + b"  \n")
    return f


@pytest.fixture(scope="module")
def tls_server(certs, tokens):
    with Server(STORE, "--tls-cert", certs / "server.pem", "--tls-key", certs / "server.key",
                "--auth-token-file", tokens) as s:
        yield s


def test_the_right_token_over_tls_reads_what_tensorstore_reads(tls_server, certs):
    assert tls_server.uri.startswith("grpc+tls://")
    client = fl.connect(tls_server.uri, tls_root_certs=(certs / "ca.pem").read_bytes())
    np.testing.assert_array_equal(fetch_all(client, bearer(TOKEN)), expected())
    meta = json.loads(list(client.do_action(fl.Action("metadata", b"/"), bearer(TOKEN)))[0].body.to_pybytes())
    assert meta["shape"] == [30, 41]


@pytest.mark.parametrize("options", [None, bearer(b"wrong-token"), bearer(TOKEN + b"x"), bearer(b""),
                                     fl.FlightCallOptions(headers=[(b"authorization", b"Basic " + TOKEN)])],
                         ids=["no token", "wrong token", "token plus a byte", "empty token", "not bearer"])
def test_calls_without_an_accepted_token_are_unauthenticated(tls_server, certs, options):
    client = fl.connect(tls_server.uri, tls_root_certs=(certs / "ca.pem").read_bytes())
    with pytest.raises(fl.FlightUnauthenticatedError):
        list(client.list_flights(options=options))
    with pytest.raises(fl.FlightUnauthenticatedError):
        client.get_flight_info(fl.FlightDescriptor.for_path("/"), options)
    # a ticket alone is not enough either
    ticket = fl.Ticket(json.dumps({"array": "/", "slice": "", "layout": "tensor"}).encode())
    with pytest.raises(fl.FlightUnauthenticatedError):
        client.do_get(ticket, options).read_all()
    with pytest.raises(fl.FlightUnauthenticatedError):
        list(client.do_action(fl.Action("stats", b""), options))


def test_plaintext_and_untrusted_clients_cannot_talk_to_tls(tls_server, certs):
    plain = fl.connect(tls_server.uri.replace("grpc+tls://", "grpc://"))
    with pytest.raises(fl.FlightUnavailableError):
        list(plain.list_flights(options=bearer(TOKEN)))
    # a client that does not trust the server's CA refuses it
    other = fl.connect(tls_server.uri, tls_root_certs=(certs / "stranger.pem").read_bytes())
    with pytest.raises(fl.FlightUnavailableError):
        list(other.list_flights(options=bearer(TOKEN)))


def test_tokens_are_never_printed(tls_server, certs):
    client = fl.connect(tls_server.uri, tls_root_certs=(certs / "ca.pem").read_bytes())
    with pytest.raises(fl.FlightUnauthenticatedError) as e:
        list(client.list_flights(options=bearer(b"wrong-token")))
    assert b"wrong-token".decode() not in str(e.value)
    # tokens without TLS on a network address need --insecure (test_serve_cli.py)
    with Server(STORE, "--auth-token-file", tls_server.proc.args[tls_server.proc.args.index("--auth-token-file") + 1],
                "--host", "0.0.0.0", "--insecure") as s:
        list(fl.connect(s.uri).list_flights(options=bearer(TOKEN)))
        with pytest.raises(fl.FlightUnauthenticatedError):
            list(fl.connect(s.uri).list_flights(options=bearer(b"wrong-token")))
        code, out, err = s.stop()
    assert code == 0, err
    assert TOKEN.decode() not in out + err and "another-token" not in out + err and "wrong-token" not in out + err


def test_client_certificates_when_a_client_ca_is_given(certs, tokens):
    with Server(STORE, "--tls-cert", certs / "server.pem", "--tls-key", certs / "server.key",
                "--tls-client-ca", certs / "ca.pem", "--auth-token-file", tokens) as s:
        ca = (certs / "ca.pem").read_bytes()
        good = fl.connect(s.uri, tls_root_certs=ca, cert_chain=(certs / "client.pem").read_bytes(),
                          private_key=(certs / "client.key").read_bytes())
        np.testing.assert_array_equal(fetch_all(good, bearer(TOKEN)), expected())
        without = fl.connect(s.uri, tls_root_certs=ca)
        with pytest.raises(fl.FlightUnavailableError):
            list(without.list_flights(options=bearer(TOKEN)))
        stranger = fl.connect(s.uri, tls_root_certs=ca, cert_chain=(certs / "stranger.pem").read_bytes(),
                              private_key=(certs / "stranger.key").read_bytes())
        with pytest.raises(fl.FlightUnavailableError):
            list(stranger.list_flights(options=bearer(TOKEN)))


@pytest.mark.parametrize("args,message", [
    (["--host", "0.0.0.0"], "--auth-token-file"),
    (["--tls-cert", "x.pem"], "--tls-cert and --tls-key go together"),
    (["--max-memory", "lots"], "'lots' is not a size"),
])
def test_unsafe_or_incomplete_options_are_refused(args, message):
    r = subprocess.run([ZARO, "serve", str(STORE), "--port", "0", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert message in r.stderr
    if args[:2] == ["--host", "0.0.0.0"]:
        assert "--insecure" in r.stderr and "--tls-cert" in r.stderr


def test_insecure_allows_any_address_without_tokens():
    with Server(STORE, "--host", "0.0.0.0", "--insecure") as s:
        np.testing.assert_array_equal(fetch_all(fl.connect(s.uri)), expected())


def stall(uri):
    """A stream of the array's first endpoint (256 MiB) whose client reads one batch, then nothing:
    the server keeps it, and its memory, until the client cancels.

    The client's gRPC runs without BDP probing, so its HTTP/2 windows stay at their initial size.
    With probing on, over loopback it grew them to 256 MiB within a second (SETTINGS
    INITIAL_WINDOW_SIZE=268435456 in the server's frame log), took the whole endpoint into its own
    buffers, and the "stalled" stream ended with every row: about 1 run in 17."""
    client = fl.connect(uri, generic_options=[("grpc.http2.bdp_probe", 0)])
    reader = client.do_get(client.get_flight_info(fl.FlightDescriptor.for_path("/")).endpoints[0].ticket)
    reader.read_chunk()
    time.sleep(0.5)  # the server fills what gRPC buffers, then waits for the client
    return reader


def first_rows(uri):
    """Rows 0:256 (the written ones, one endpoint): the client reads them all."""
    client = fl.connect(uri)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(
        json.dumps({"array": "/", "slice": "0:256", "layout": "tensor"})))
    assert len(info.endpoints) == 1
    return client.do_get(info.endpoints[0].ticket)


def test_requests_wait_for_a_stream_slot_then_fail_resource_exhausted(big):
    path, values = big
    with Server(path, "--max-streams", "1", "--queue-timeout", "2") as s:
        held = stall(s.uri)
        t0 = time.monotonic()
        with pytest.raises(pa.ArrowException, match="--max-streams"):
            first_rows(s.uri).read_all()
        assert time.monotonic() - t0 >= 1.5  # it waited for the queue timeout first
        held.cancel()
        # the slot comes back: the next request is served
        got = first_rows(s.uri).read_all()
        np.testing.assert_array_equal(got.column(0).combine_chunks().to_numpy_ndarray(), values)


def test_requests_wait_for_memory_then_fail_resource_exhausted_naming_the_budget(big):
    path, values = big
    # one tensor stream of this array reserves about 100 MiB (three 32 MiB blocks and input)
    with Server(path, "--max-memory", "150m", "--queue-timeout", "2") as s:
        client = fl.connect(s.uri)
        held = stall(s.uri)
        stats = s.stats(client)
        assert stats["budget_bytes"] == 150 << 20 and stats["active_streams"] == 1
        assert 0 < stats["in_use_bytes"] <= 150 << 20
        with s.watch_queued(client) as queued:
            with pytest.raises(pa.ArrowException, match=r"memory budget \(--max-memory 150 MiB"):
                first_rows(s.uri).read_all()
        assert max(queued) == 1  # the request waited in the queue before it failed
        held.cancel()
        got = first_rows(s.uri).read_all()
        np.testing.assert_array_equal(got.column(0).combine_chunks().to_numpy_ndarray(), values)
        for _ in range(100):
            stats = s.stats(client)
            if stats["allocated_bytes"] == 0:
                break
            time.sleep(0.05)
        assert stats["allocated_bytes"] == 0 and stats["queued"] == 0 and stats["active_streams"] == 0


def test_sigterm_lets_running_streams_finish_cancels_stalled_ones_and_exits_0(big):
    path, values = big
    s = Server(path, "--shutdown-grace", "3")
    finishing = first_rows(s.uri)
    first = finishing.read_chunk().data
    stalled = stall(s.uri)
    t0 = time.monotonic()
    s.terminate()
    time.sleep(0.5)
    # no new calls
    with pytest.raises(pa.ArrowException):
        list(fl.connect(s.uri).list_flights())
    # the stream that was running finishes with every value
    rest = finishing.read_all()
    got = np.concatenate([pa.Table.from_batches([first]).column(0).combine_chunks().to_numpy_ndarray(),
                          rest.column(0).combine_chunks().to_numpy_ndarray()])
    np.testing.assert_array_equal(got, values)
    # the stalled one is cancelled once the grace period is over: its reader ends in an error
    # (gRPC CANCELLED, which pyarrow's read_all raises as KeyboardInterrupt), not with all rows
    code, out, err = s.stop()
    assert code == 0, err
    assert time.monotonic() - t0 < 30
    with pytest.raises((pa.ArrowException, KeyboardInterrupt)):
        stalled.read_all()
