"""A load test of `zaro serve --http-port`, as test_flight_load.py is for Flight: concurrent
HTTP clients reading an Arrow IPC stream, some hanging up after the first batch, one reading
slowly, against a memory budget smaller than what they would take together. Every client that
reads to the end gets exactly the values tensorstore wrote; requests queue instead of the server
growing; its Arrow memory is back to 0 afterwards.

  ZARO_LOAD_CLIENTS=64 .venv/bin/python -m pytest tests/python/test_http_load.py -q   # heavier
"""
import json
import os
import threading
import time
import urllib.request

import numpy as np
import pyarrow as pa

from zaro_server import Server, check_load

CLIENTS = int(os.environ.get("ZARO_LOAD_CLIENTS", "16"))
BUDGET_MIB = 256
JVM_SLACK_MIB = 256  # as in test_flight_load.py


def test_concurrent_http_clients_early_quitters_and_a_slow_reader(big):
    path, values = big
    with Server(path, "--http-port", "0", "--max-memory", f"{BUDGET_MIB}m", "--max-streams", "8",
                "--queue-timeout", "300") as s:
        url = f"{s.http}/arrays/?slice=0:256"

        def stats():
            return json.loads(urllib.request.urlopen(s.http + "/stats").read())

        pa.ipc.open_stream(urllib.request.urlopen(url)).read_all()  # warm-up
        baseline = s.rss_kib()
        results, errors, queued, done = {}, [], [], threading.Event()

        def full(i):
            table = pa.ipc.open_stream(urllib.request.urlopen(url)).read_all()
            results[i] = table.column(0).combine_chunks().to_numpy_ndarray()

        def quitter(i):
            response = urllib.request.urlopen(url)
            reader = pa.ipc.open_stream(response)
            reader.read_next_batch()
            response.close()
            results[i] = "quit"

        def slow(i):
            reader = pa.ipc.open_stream(urllib.request.urlopen(url))
            parts = []
            for batch in reader:
                parts.append(batch.column(0).to_numpy_ndarray())
                time.sleep(0.1)
            results[i] = np.concatenate(parts)

        def run(fn, i):
            try:
                fn(i)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append((i, repr(e)))

        def watch():
            while not done.is_set():
                queued.append(stats()["queued"])
                time.sleep(0.05)

        kinds = [slow] + [quitter] * (CLIENTS // 2) + [full] * (CLIENTS - 1 - CLIENTS // 2)
        threads = [threading.Thread(target=run, args=(fn, i)) for i, fn in enumerate(kinds)]
        watcher = threading.Thread(target=watch)
        watcher.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        done.set()
        watcher.join()

        check_load(s, stats, kinds, results, errors, queued, values, baseline, BUDGET_MIB, JVM_SLACK_MIB)
