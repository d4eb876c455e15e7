"""`zaro sql STORE` without SQL: statements piped on standard input, and the interactive shell
through a pseudo-terminal. Expected values come from numpy over the sample's coordinates as
tensorstore reads them."""
import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time

import tensorstore as ts

from zaro_server import ROOT, ZARO

SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"
LAT = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / "lat")}}).result().read().result()


def piped(text):
    return subprocess.run([ZARO, "sql", str(SAMPLE)], input=text, capture_output=True, text=True, timeout=300)


def test_piped_statements_run_without_prompts():
    r = piped(".mode csv\nselect count(*) as n\nfrom t2m where lat > 80;\nselect count(*) as m from lat;\n")
    assert r.returncode == 0, r.stderr
    assert "zaro>" not in r.stdout
    assert r.stdout == f"n\n{int((LAT > 80).sum()) * 48 * 144}\nm\n73\n"


def test_piped_failure_exits_non_zero_and_goes_on():
    r = piped(".mode csv\nselect * from t2n;\nselect 1 as one;\n")
    assert r.returncode == 1
    assert "Error: " in r.stderr and "t2m" in r.stderr  # DuckDB's hint names the near table
    assert r.stdout == "one\n1\n"


def test_echo_select_one():
    r = subprocess.run(f"echo 'select 1;' | {ZARO} sql {SAMPLE}", shell=True, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "│ 1 │" in r.stdout


def read_until(fd, needle, timeout=120):
    """Reads the pty until `needle` shows (bounded), returning everything read."""
    out = b""
    deadline = time.monotonic() + timeout
    while needle.encode() not in out:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{needle!r} never came; read: {out.decode(errors='replace')}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out.decode(errors="replace")


def test_interactive_shell_through_a_pty(tmp_path):
    pid, fd = pty.fork()
    if pid == 0:  # the child: the shell, with its history in the test's directory
        os.environ["ZARO_JAVA_OPTS"] = f"-Duser.home={tmp_path}"  # Java takes user.home from passwd
        os.execv(ZARO, [ZARO, "sql", str(SAMPLE)])
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        read_until(fd, "zaro> ")
        os.write(fd, b"select count(*) AS n\r")
        read_until(fd, "...> ")
        os.write(fd, b"from lat;\r")
        screen = read_until(fd, "zaro> ")
        assert "73" in screen
        os.write(fd, b"select * from nope;\r")
        screen = read_until(fd, "zaro> ")
        assert "Error: " in screen
        os.write(fd, b".tables\r")
        screen = read_until(fd, "zaro> ")
        assert "precip" in screen and "t2m" in screen
        os.write(fd, b"\x04")  # Ctrl-D leaves
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        os.close(fd)
    assert "from lat;" in (tmp_path / ".zaro_history").read_text()
