"""A load test of `zaro serve`: many concurrent pyarrow clients, some hanging up after the
first batch, one reading slowly, against a server with a memory budget smaller than what they
would take together. Every client that reads to the end gets exactly the values numpy wrote
(through tensorstore); the server queues requests instead of growing (its resident memory stays
within the budget plus the JVM's own), and its Arrow memory is back to 0 afterwards.

  ZARO_LOAD_CLIENTS=64 .venv/bin/python -m pytest tests/python/test_flight_load.py -q   # heavier
"""
import json
import os
import threading
import time

import numpy as np
import pyarrow.flight as fl
import pytest

from zaro_server import Server, check_load

CLIENTS = int(os.environ.get("ZARO_LOAD_CLIENTS", "16"))
BUDGET_MIB = 256
# what the JVM itself may add to its resident memory under load, beyond the Arrow budget: heap
# growth, gRPC/netty buffers, thread stacks, zstd's native decoder state
JVM_SLACK_MIB = 256


@pytest.mark.parametrize("cache_mib", [0, 96], ids=["no cache", "96 MiB of the budget cached"])
def test_concurrent_clients_early_quitters_and_a_slow_reader(big, cache_mib):
    path, values = big
    # with a cache: 128 rows, 32 chunks of 1 MiB decoded, whose entries (with their stored bytes)
    # fit the cache, so repeated reads hit (a scan larger than an LRU cache never would)
    rows = 128 if cache_mib else 256
    values = values[:rows]
    with Server(path, "--max-memory", f"{BUDGET_MIB}m", "--max-streams", "8", "--queue-timeout", "300",
                "--cache-memory", f"{cache_mib}m") as s:
        client = fl.connect(s.uri)
        info = client.get_flight_info(fl.FlightDescriptor.for_command(
            json.dumps({"array": "/", "slice": f"0:{rows}", "layout": "tensor"})))
        assert len(info.endpoints) == 1
        ticket = info.endpoints[0].ticket
        client.do_get(ticket).read_all()  # warm-up: JIT, pools
        baseline = s.rss_kib()
        results, errors = {}, []

        def full(i):
            table = fl.connect(s.uri).do_get(ticket).read_all()
            results[i] = table.column(0).combine_chunks().to_numpy_ndarray()

        def quitter(i):
            reader = fl.connect(s.uri).do_get(ticket)
            reader.read_chunk()
            reader.cancel()
            results[i] = "quit"

        def slow(i):
            reader = fl.connect(s.uri).do_get(ticket)
            parts = []
            while True:
                try:
                    parts.append(reader.read_chunk().data.column(0).to_numpy_ndarray())
                except StopIteration:
                    break
                time.sleep(0.1)
            results[i] = np.concatenate(parts)

        def run(fn, i):
            try:
                fn(i)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append((i, repr(e)))

        kinds = [slow] + [quitter] * (CLIENTS // 2) + [full] * (CLIENTS - 1 - CLIENTS // 2)
        threads = [threading.Thread(target=run, args=(fn, i)) for i, fn in enumerate(kinds)]
        with s.watch_queued(client) as queued:
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=600)

        stats = s.stats(client)
        if cache_mib:
            # the decoded-chunk cache is part of the budget: it stays within its share and serves
            assert stats["cache_hits"] > 0 and stats["cache_bytes"] <= cache_mib << 20, stats
            assert stats["budget_bytes"] == (BUDGET_MIB - cache_mib) << 20, stats
        else:
            assert "cache_hits" not in stats
        check_load(s, lambda: s.stats(client), kinds, results, errors, queued, values, baseline,
                   BUDGET_MIB, JVM_SLACK_MIB)
