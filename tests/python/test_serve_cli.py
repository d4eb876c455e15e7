"""`zaro serve` on the command line: the banner's examples run as printed against the store served
(its first array, a slice that fits), the address printed is the one bound, a port in use is one
line naming the port and its flag (exit 2), and bearer tokens never cross a network in clear text
unless --insecure says so (the banner then warns). Expected values come from tensorstore."""
import re
import socket
import subprocess
import time

import pyarrow as pa
import pyarrow.flight as fl
import pytest
import tensorstore as ts

from zaro_server import ROOT, ZARO, Server

CF = ROOT / "testdata" / "xarray_client" / "cf.zarr"  # first array: area, 7 x 8
ROOT_ARRAY = ROOT / "testdata" / "sharding" / "stores" / "index_without_crc.zarr"  # a root array of 17
TOKEN = b"s3cret-token-for-tests"


def banner(s, last="table = "):
    """The banner's lines, once its line holding `last` is out (the server prints it at once)."""
    deadline = time.monotonic() + 30
    while not any(last in line for line in s.lines) and time.monotonic() < deadline:
        time.sleep(0.05)
    return "".join(s.lines).splitlines()


def example(lines):
    """The Python the banner prints (its indented lines), as one program."""
    code = [line[2:] for line in lines if line.startswith("  ") and not line.startswith("  Flight SQL")
            and not line.startswith("  HTTP:")]
    return "\n".join(code)


def tensorstore(path):
    driver = "zarr3" if (path / "zarr.json").exists() else "zarr"
    return ts.open({"driver": driver, "kvstore": {"driver": "file", "path": str(path)}}).result().read().result()


@pytest.mark.parametrize("store,array,rows", [(CF, "area", 7), (ROOT_ARRAY, "", 17)])
def test_the_banner_example_runs_on_the_store_served(store, array, rows):
    with Server(store) as s:
        program = example(banner(s))
        assert "t2m" not in program and '"slice": "0:24"' not in program, program
        scope = {}
        exec(program, scope)  # noqa: S102 (the banner's own example)
        table = scope["table"]
        want = tensorstore(store / array)
        assert table.num_rows == rows
        got = table.column(0).combine_chunks()
        values = got.to_numpy_ndarray() if isinstance(got, pa.FixedShapeTensorArray) else got.to_numpy()
        assert (values == want[:rows]).all()


def test_the_address_printed_is_the_address_bound():
    with Server(CF, "--host", "localhost") as s:
        first = s.lines[0]
        assert re.search(r"at grpc://127\.0\.0\.1:\d+ \(localhost\)", first), first
        list(fl.connect(s.uri).list_flights())
    with Server(CF, "--host", "0.0.0.0", "--insecure") as s:
        first = s.lines[0]
        port = s.port
        assert f"at grpc://0.0.0.0:{port} (every interface; on this machine grpc://127.0.0.1:{port})" in first, first
        assert "warning: --insecure: no authentication" in banner(s)[1], s.lines
        list(fl.connect(s.uri).list_flights())


def held_port():
    """A socket listening on a loopback port: the port is in use while it lives."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@pytest.mark.parametrize("flag", ["--port", "--http-port"])
def test_a_port_in_use_is_one_line_naming_it_and_its_flag(flag):
    with held_port() as sock:
        port = sock.getsockname()[1]
        args = ["--port", str(port)] if flag == "--port" else ["--port", "0", "--http-port", str(port)]
        r = subprocess.run([ZARO, "serve", str(CF), *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("zaro: error")]
    assert lines == [f"zaro: error: port {port} ({flag}) is already in use on 127.0.0.1: stop the program that "
                     f"holds it, or give {flag} another port ({flag} 0 picks a free one)"], r.stderr
    assert "Exception" not in r.stderr and "java." not in r.stderr and "usage:" not in r.stderr


@pytest.fixture(scope="module")
def tokens(tmp_path_factory):
    f = tmp_path_factory.mktemp("tokens") / "tokens.txt"
    f.write_bytes(TOKEN + b"\n")
    return f


def test_tokens_without_tls_on_a_network_address_are_refused(tokens):
    r = subprocess.run([ZARO, "serve", str(CF), "--port", "0", "--host", "0.0.0.0", "--auth-token-file", tokens],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "without TLS" in r.stderr and "--tls-cert" in r.stderr and "--insecure" in r.stderr, r.stderr


def test_tokens_without_tls_on_loopback_need_nothing_more(tokens):
    with Server(CF, "--auth-token-file", tokens) as s:
        assert not any("warning" in line for line in banner(s)), s.lines
        opts = fl.FlightCallOptions(headers=[(b"authorization", b"Bearer " + TOKEN)])
        list(fl.connect(s.uri).list_flights(options=opts))


def test_insecure_lets_tokens_through_in_clear_text_with_a_warning(tokens):
    with Server(CF, "--host", "0.0.0.0", "--auth-token-file", tokens, "--insecure") as s:
        assert "warning: --insecure: no TLS; bearer tokens cross the network in clear text" in banner(s)[1], s.lines
        opts = fl.FlightCallOptions(headers=[(b"authorization", b"Bearer " + TOKEN)])
        list(fl.connect(s.uri).list_flights(options=opts))
