"""Starts `./zaro serve` for a test and stops it: shared by the Flight test files."""
import contextlib
import json
import pathlib
import re
import subprocess
import threading
import time

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
        self.terminated = False
        deadline = time.time() + timeout
        while time.time() < deadline and self.uri is None:
            line = self.proc.stdout.readline()
            if not line and self.proc.poll() is not None:
                raise RuntimeError("zaro serve exited: " + self.proc.stderr.read())
            self.lines.append(line)
            m = re.search(r"grpc(\+tls)?://127\.0\.0\.1:\d+", line)
            if m:
                self.uri = m.group(0)
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
