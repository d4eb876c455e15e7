"""Starts `./zaro serve` for a test and stops it: shared by the Flight test files."""
import contextlib
import json
import pathlib
import re
import subprocess
import threading
import time

import numpy as np
import pyarrow.flight as fl

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZARO = str(ROOT / "zaro")


class Server:
    """A running `./zaro serve STORE ARGS...`: its process, its URI, and its output so far."""

    def __init__(self, store, *args, timeout=120):
        self.proc = subprocess.Popen([ZARO, "serve", str(store), "--port", "0", *map(str, args)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.uri = None
        # with --http-port, the HTTP base URL (printed after the Flight address)
        self.http = None
        want_http = "--http-port" in map(str, args)
        self.terminated = False
        deadline = time.time() + timeout
        while time.time() < deadline and (self.uri is None or (want_http and self.http is None)):
            line = self.proc.stdout.readline()
            if not line and self.proc.poll() is not None:
                raise RuntimeError("zaro serve exited: " + self.proc.stderr.read())
            self.lines.append(line)
            m = re.search(r"grpc(\+tls)?://127\.0\.0\.1:\d+", line)
            if m and self.uri is None:
                self.uri = m.group(0)
            h = re.search(r"HTTP: (https?://127\.0\.0\.1:\d+)", line)
            if h:
                self.http = h.group(1)
        assert self.uri, "zaro serve did not print its address"
        # keep reading both pipes, so a chatty server never blocks on a full one
        self.err = []
        self._readers = [threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True),
                         threading.Thread(target=lambda: self.err.extend(self.proc.stderr), daemon=True)]
        for t in self._readers:
            t.start()

    @property
    def port(self):
        return int(self.uri.rsplit(":", 1)[1])

    def stats(self, client, options=None):
        return json.loads(list(client.do_action(fl.Action("stats", b""), options))[0].body.to_pybytes())

    @contextlib.contextmanager
    def watch_queued(self, client):
        """Collects the stats action's "queued" every 50 ms while the block runs; yields the list."""
        seen, done = [], threading.Event()

        def watch():
            while not done.is_set():
                seen.append(self.stats(client)["queued"])
                time.sleep(0.05)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            yield seen
        finally:
            done.set()
            watcher.join()

    def rss_kib(self, field="VmRSS"):
        """The server JVM's resident memory (./zaro execs java, so the pid is the JVM's)."""
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise KeyError(field)

    def terminate(self):
        """SIGTERM (once: a second one would make the server stop without its grace period)."""
        if not self.terminated and self.proc.poll() is None:
            self.terminated = True
            self.proc.terminate()

    def stop(self):
        """SIGTERM unless sent already, then waits; returns (exit code, stdout, stderr)."""
        self.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for t in self._readers:
            t.join(timeout=10)
        return self.proc.returncode, "".join(self.lines), "".join(self.err)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def check_load(s, stats, kinds, results, errors, queued, values, baseline, budget_mib, slack_mib):
    """The load tests' verdict: no client failed, quitters quit, every other client got `values`,
    the budget made requests wait, RSS grew by at most the budget plus the JVM's slack, Arrow
    memory is back to 0 (from `stats()`), and the server stops with exit code 0."""
    assert not errors, errors
    assert len(results) == len(kinds)
    for i, fn in enumerate(kinds):
        if fn.__name__ == "quitter":
            assert results[i] == "quit"
        else:
            np.testing.assert_array_equal(results[i], values, err_msg=f"client {i} ({fn.__name__})")
    assert max(queued) > 0, "the budget never made a request wait"
    grown_mib = (s.rss_kib("VmHWM") - baseline) / 1024
    assert grown_mib <= budget_mib + slack_mib, f"RSS grew {grown_mib:.0f} MiB"
    for _ in range(200):
        st = stats()
        if st["allocated_bytes"] == 0 and st["active_streams"] == 0:
            break
        time.sleep(0.05)
    assert st["allocated_bytes"] == 0 and st["queued"] == 0 and st["active_streams"] == 0, st
    assert st["peak_in_use_bytes"] <= budget_mib << 20
    print(f"\nRSS grew {grown_mib:.0f} MiB over {baseline // 1024} MiB; peak Arrow memory "
          f"{st['peak_in_use_bytes'] >> 20} MiB of {budget_mib}; most queued {max(queued)}")
    code, out, err = s.stop()
    assert code == 0, err
