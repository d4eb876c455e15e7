"""`./zaro read icechunk://...` over Icechunk's own compatibility repositories (testdata/icechunk,
written by Icechunk 1.0 to 2.0.6; see its README): every array at every branch, tag and
snapshot of expected.json equals, by numpy, the values Icechunk's generating scripts wrote.
Locally and over HTTP (Python's http.server, which ignores Range). The virtual chunk
(s3://testbucket/can_read_old/chunk-1) is read from moto_server on loopback when it is installed,
holding what Icechunk's own test puts there; elsewhere only the native and inline chunks are read.
"""
import functools
import http.server
import json
import os
import pathlib
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request

import numpy as np
import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZARO = str(ROOT / "zaro")
ENV = dict(os.environ, ZARO_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
ICECHUNK = ROOT / "testdata" / "icechunk"
EXPECTED = json.loads((ICECHUNK / "expected.json").read_text())


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def http_root():
    handler = functools.partial(_Quiet, directory=str(ICECHUNK))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def query(ref):
    return "".join(f"?{k}={urllib.parse.quote(v)}" for k, v in ref.items())


def expected(arr):
    """The array the script wrote, by numpy: one value everywhere, or the nested list."""
    value = arr["value"]
    value = np.nan if value == "NaN" else value
    return np.broadcast_to(np.array(value, dtype=arr["data_type"]), arr["shape"])


def zaro(*args, env=ENV):
    return subprocess.run([ZARO, *args], capture_output=True, text=True, env=env)


def read(store, path, sl, out, env=ENV):
    result = zaro("read", store, path, "--slice", sl, "--out", str(out), env=env)
    assert result.returncode == 0, result.stderr
    column = pa.ipc.open_file(out).read_all().column(0).combine_chunks()
    if isinstance(column.type, pa.BaseExtensionType):
        return column.to_numpy_ndarray()
    return column.to_numpy(zero_copy_only=False)


def cases():
    """Every repository at its main branch, and test-repo-v1/v2 (formats 1 and 2) at a tag and a
    snapshot too: every format and writer without a JVM start for each of expected.json's 44
    cases (the Java tests read them all)."""
    seen, out = set(), []
    for c in EXPECTED["cases"]:
        kind = next(iter(c["ref"]), "branch")
        key = (c["repo"], kind if c["repo"] in ("test-repo-v1", "test-repo-v2") else "any")
        if key not in seen:
            seen.add(key)
            out.append(pytest.param(c, id=f"{c['repo']}{query(c['ref'])}"))
    return out


def check_case(case, store, tmp_path, env=ENV, virtual_readable=False, ls=True):
    if ls:
        listing = zaro("ls", store, env=env)
        assert listing.returncode == 0, listing.stderr
        listed = sorted(line.split()[0] for line in listing.stdout.splitlines() if line.startswith("/"))
        assert listed == sorted("/" + p for p in [*case["groups"], *case["arrays"]])
    for path, arr in case["arrays"].items():
        want = expected(arr)
        virtual = {} if virtual_readable else arr.get("virtual_chunks", {})
        if not virtual:
            got = read(store, path, "", tmp_path / "a.arrow", env)
            np.testing.assert_array_equal(got, want, err_msg=path)
            continue
        # big_chunks (5x5 chunks) with its virtual chunk 0/0: the other three chunks
        assert list(virtual) == ["0/0"] and arr["chunk_shape"] == [5, 5]
        for sl, index in [("5:10, :", np.s_[5:10, :]), ("0:5, 5:10", np.s_[0:5, 5:10])]:
            np.testing.assert_array_equal(read(store, path, sl, tmp_path / "a.arrow", env), want[index], err_msg=path)


@pytest.mark.parametrize("case", cases())
def test_local_repository(case, tmp_path):
    check_case(case, f"icechunk://{ICECHUNK / case['repo']}{query(case['ref'])}", tmp_path)


@pytest.mark.parametrize("case", [c for c in cases() if c.values[0]["repo"] in ("test-repo-v1", "test-repo-v2")])
def test_repository_over_http(case, tmp_path, http_root):
    check_case(case, f"icechunk+{http_root}/{case['repo']}{query(case['ref'])}", tmp_path)


def test_bad_refs_fail_with_a_message_and_no_output(tmp_path):
    out = tmp_path / "x.arrow"
    for suffix, message in [("?branch=nope", "has no branch 'nope' (branches: main, my-branch)"),
                            ("?tag=deleted", "tag 'deleted' was deleted"),
                            ("?snapshot=ZZZZZZZZZZZZZZZZZZZ0", "has no snapshot ZZZZZZZZZZZZZZZZZZZ0")]:
        result = zaro("read", f"icechunk://{ICECHUNK / 'test-repo-v2'}{suffix}", "group1/small_chunks",
                      "--out", str(out))
        assert result.returncode != 0 and message in result.stderr, result.stderr
        assert not out.exists()


@pytest.fixture(scope="module")
def moto():
    if shutil.which("moto_server") is None:
        pytest.skip("moto_server is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        # as icechunk's test_can_read_old does: the virtual chunk holds the bytes of chunk 0/1
        urllib.request.urlopen(urllib.request.Request(endpoint + "/testbucket", method="PUT"), timeout=60)
        data = (ICECHUNK / EXPECTED["virtual_chunk_bytes"]).read_bytes()
        urllib.request.urlopen(urllib.request.Request(endpoint + "/testbucket/can_read_old/chunk-1", data=data,
                                                      headers={"Content-Type": "application/octet-stream"},
                                                      method="PUT"), timeout=60)
        yield endpoint
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("case", [c for c in cases() if c.values[0]["repo"].startswith("test-repo")
                                  and "snapshot" not in c.values[0]["ref"]])
def test_virtual_chunk_from_a_local_s3(case, tmp_path, moto):
    env = dict(ENV, ZARO_S3_ENDPOINT=moto, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
               AWS_REGION="us-east-1")
    check_case(case, f"icechunk://{ICECHUNK / case['repo']}{query(case['ref'])}", tmp_path, env,
               virtual_readable=True, ls=False)
