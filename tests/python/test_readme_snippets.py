"""Every README code snippet a newcomer can run here runs as written.

- python blocks run in a fresh interpreter against a live `./zaro serve` of the bundled sample
  (`127.0.0.1:8815` in the text becomes the test server's port); blocks that need files the
  README tells you to make first (TLS certificates, tokens) are skipped by name below, with why.
- bash blocks of `./zaro` commands run from the checkout.
- R, JavaScript and Scala blocks are not run: untested here (no R, node or Spark in the suite),
  and listed in UNTESTED so that a new one is noticed.
- The Java block is compiled and run by ReadmeExampleTest (Maven), and as a separate Maven project
  against the built artifacts by test_java_project.py.
"""
import pathlib
import re
import subprocess
import sys

import pytest

from zaro_server import ROOT, ZARO, Server

README = (ROOT / "README.md").read_text()
BLOCKS = [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", README, re.S)]
SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"

# snippets that need what only the reader has: skipped, each with the reason
NEEDS = {
    "cert.pem": "needs the TLS certificate and token files the Serving section makes",
    "spark.": "needs a Spark session (pyspark with the zaro-spark jar)",
    "benchmarks/data/": "needs the benchmark datasets that benchmarks/make_datasets.py writes",
    "zaro_client": "the Python client section: run by the client's own tests (tests/python/test_client*.py)",
    "pip install": "installs packages",
}
UNTESTED = {"r", "js", "javascript", "scala", "xml", "java", ""}


def python_blocks():
    out = []
    for i, (lang, code) in enumerate(BLOCKS):
        if lang == "python":
            out.append(pytest.param(code, id=f"python-{i}"))
    return out


@pytest.fixture(scope="module")
def server():
    with Server(SAMPLE, "--http-port", "0") as s:  # Flight and Arrow IPC over HTTP, as the README's
        yield s


@pytest.mark.parametrize("code", python_blocks())
def test_python_blocks(code, server, tmp_path):
    for needle, why in NEEDS.items():
        if needle in code:
            pytest.skip(why)
    if "t2m.arrow" in code:  # the file the README's first command writes
        subprocess.run([ZARO, "read", str(SAMPLE), "t2m", "--slice", "0:24, :, :", "--out", "t2m.arrow"],
                       cwd=tmp_path, check=True, capture_output=True, timeout=300)
    code = code.replace("127.0.0.1:8815", f"127.0.0.1:{server.port}")
    code = code.replace("http://127.0.0.1:8816", server.http)
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{code}\n{r.stderr}"


def zaro_lines():
    out = []
    for i, (lang, code) in enumerate(BLOCKS):
        if lang != "bash":
            continue
        for line in code.splitlines():
            command = line.split("  #")[0].strip()
            if command.startswith(("./zaro ", "echo ", "printf ")) and "STORE" not in command \
                    and "./zaro serve" not in command:
                out.append(pytest.param(command, id=command[:60]))
    return out


@pytest.mark.parametrize("command", zaro_lines())
def test_bash_blocks(command, tmp_path):
    # run from a copy's point of view: paths are relative to the checkout, outputs go to tmp
    for needle, why in NEEDS.items():
        if needle in command:
            pytest.skip(why)
    command = command.replace("--out t2m.arrow", f"--out {tmp_path / 't2m.arrow'}")
    r = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{command}\n{r.stderr}"


def test_every_block_is_run_or_listed():
    langs = {lang.lower() for lang, _ in BLOCKS}
    assert langs <= UNTESTED | {"python", "bash"}, langs - UNTESTED
