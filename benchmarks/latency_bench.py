"""zaro vs tensorstore (its `http` kvstore) against a loopback object store with per-request latency.

Object stores answer each request after tens of milliseconds; this measures how well a reader
keeps requests in flight. benchmarks/latency_server.py serves benchmarks/data/ over HTTP/1.1
with Range support, waiting --latency-ms before every response (and pacing bodies with --mbps).
Datasets (written by make_datasets.py when missing): `zstd_64` (512^3 uint16, 512 objects of
64^3, zstd) and `sharded_zstd` (8 shards of 256^3, 64^3 inner chunks, zstd). Operations: read
all; chunk by chunk (the first --chunks 64^3 chunks in C order, one read each); random 64^3 boxes
(--boxes of them, p50/p99 per box). Both readers get --threads decode threads; zaro's
ioConcurrency and tensorstore's http concurrency stay at their defaults.

  .venv/bin/python benchmarks/latency_bench.py [--latency-ms 20 100] [--threads 2] [--repeat 3]

With --store s3 the same server answers as a path-style S3 endpoint (bucket `bench`): zaro reads
`s3://bench/NAME?endpoint=...&anonymous=true` (S3Store: object GETs through zaro's HTTP/1.1
client on this plain-http endpoint, listing and HEAD through the SDK; --s3-client sdk sends the
GETs through the SDK too) and tensorstore its `s3` kvstore on that endpoint. --s3-addressing virtual
sends zaro's requests virtual-host style instead, to `bench.localhost` (benchmarks/loopback-hosts,
through -Djdk.net.hosts.file), as they go to a bucket on AWS.

With --anchors, each read-all row is also measured against the issue's two anchors, printed as a
second table: the fetch floor (benchmarks/fetch_floor.py: the same objects fetched whole at zaro's
peak requests in flight by a minimal client that discards the bodies) and the local read of the
same array (`./zaro bench` on the directory, same threads and passes); with zaro's and the local
read's process CPU seconds per read (median of the timed passes). --no-tensorstore skips
tensorstore (its columns are then empty).

With --tls the server speaks https with testdata/tls's loopback certificate, which every client
is told to trust (zaro's JVM: `javax.net.ssl.trustStore` through ZARO_JAVA_OPTS; tensorstore:
TENSORSTORE_CA_BUNDLE; the fetch floor: --ca-file). --zaro-http-client jdk sends zaro's GETs through
java.net.http instead of zaro's own client (`-Dzaro.http.client=jdk`), the path https took before
zaro's client spoke TLS.

--server-nice -10 runs the server ahead of the reader on the machine's cores. On loopback the
server shares the cores with the reader it serves, and a reader that keeps both cores busy slows
the server's one thread, which a server on its own machine would not feel; the fetch floor's client
barely uses the CPU, so the floor is the same either way (benchmarks/README.md,
"tensorstore over HTTP").

Peak memory: zaro's allocator peak (output + fetched bodies + scratch); tensorstore's process
peak RSS growth over the read (ru_maxrss after minus before), both MiB.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
N = 512
DATASETS = {"zstd_64": 64, "sharded_zstd": 64}
TLS = ROOT / "testdata" / "tls"
ZARO_ENV = None  # the environment of zaro's processes (set by main for --tls and --zaro-http-client)
TS_ENV = None

TS_CHILD = r"""
import json, resource, sys, time
import numpy as np, tensorstore as ts
url, threads, repeat, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
slices = json.loads(sys.stdin.read())
def parse(sel):
    return tuple(slice(*[int(b) for b in p.split(":")]) for p in sel.split(","))
t = ts.open({"driver": "zarr3", "kvstore": {"driver": "http", "base_url": url},
             "context": {"data_copy_concurrency": {"limit": threads},
                         "cache_pool": {"total_bytes_limit": 0}}}).result()
index = [parse(s) for s in slices]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
seconds, each = [], []
for r in range(warmup + repeat):
    t0 = time.perf_counter(); nbytes = 0
    for ix in index:
        r0 = time.perf_counter()
        a = t[ix].read().result(); nbytes += a.nbytes; del a
        if r >= warmup: each.append(time.perf_counter() - r0)
    if r >= warmup: seconds.append(time.perf_counter() - t0)
out = {"median_seconds": float(np.median(seconds)), "bytes": nbytes,
       "peak_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024}
if len(index) > 1:
    out["read_p50_seconds"] = float(np.percentile(each, 50))
    out["read_p99_seconds"] = float(np.percentile(each, 99))
print(json.dumps(out))
"""


# tensorstore on its s3 kvstore: argv[1] is the kvstore spec (JSON) instead of a URL
TS_S3_CHILD = TS_CHILD.replace('{"driver": "http", "base_url": url}', "json.loads(url)")
assert TS_S3_CHILD != TS_CHILD
S3_BUCKET = "bench"
# names for --s3-addressing virtual: the bucket's virtual host on loopback
HOSTS = HERE / "loopback-hosts"


def s3_urls(port, name, scheme="http", virtual_host=False):
    """(zaro's s3:// URL, tensorstore's s3 kvstore spec as JSON) of a dataset on the loopback endpoint.
    With virtual_host, zaro's URL names the endpoint `localhost` with path_style=false, so its GETs
    go to `bench.localhost` (ZARO_JAVA_OPTS then points the JVM at HOSTS for that name); tensorstore
    stays path style."""
    endpoint = f"{scheme}://127.0.0.1:{port}"
    spec = {"driver": "s3", "bucket": S3_BUCKET, "path": f"{name}/", "endpoint": endpoint,
            "aws_region": "us-east-1", "aws_credentials": {"type": "anonymous"}}
    zaro_endpoint = f"{scheme}://localhost:{port}&path_style=false" if virtual_host else endpoint
    return (f"s3://{S3_BUCKET}/{name}?endpoint={zaro_endpoint}&anonymous=true&region=us-east-1",
            json.dumps(spec))


def operations(chunk, nchunks, nboxes):
    rng = np.random.default_rng(1)
    boxes = []
    for _ in range(nboxes):
        z, y, x = rng.integers(0, N - 64, 3)
        boxes.append(f"{z}:{z + 64}, {y}:{y + 64}, {x}:{x + 64}")
    chunks = [f"{z}:{z + chunk}, {y}:{y + chunk}, {x}:{x + chunk}"
              for z in range(0, N, chunk) for y in range(0, N, chunk) for x in range(0, N, chunk)]
    return {"read_all": ["0:512, 0:512, 0:512"], "chunk_by_chunk": chunks[:nchunks],
            "random_64_boxes": boxes}


class Server:
    def __init__(self, latency_ms, mbps, extra=(), nice=None):
        # nice: the server's scheduling priority (-20..19); below 0 needs root (CAP_SYS_NICE)
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "latency_server.py"), str(DATA), "--latency-ms", str(latency_ms),
             "--mbps", str(mbps), *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            preexec_fn=None if nice is None else lambda: os.setpriority(os.PRIO_PROCESS, 0, nice))
        self.port = int(self.proc.stdout.readline().split()[1])

    def stats(self):
        """(requests, peak requests in flight) since the last call."""
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        _, requests, peak = self.proc.stdout.readline().split()
        return int(requests), int(peak)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def run_zaro(url, slices, threads, repeat, extra, warmup):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(slices))
    out = subprocess.run([str(ROOT / "zaro"), "bench", url, "/", "--slices-file", f.name,
                          "--repeat", str(repeat), "--warmup", str(warmup), "--threads", str(threads)] + extra,
                         check=True, capture_output=True, text=True, env=ZARO_ENV).stdout
    r = json.loads(out.strip().splitlines()[-1])
    r["peak_mib"] = r["peak_allocator_bytes"] / 2**20
    return r


def run_floor(url, directory, concurrency, repeat, warmup):
    out = subprocess.run([sys.executable, str(HERE / "fetch_floor.py"), url, str(directory),
                          "--concurrency", str(concurrency), "--repeat", str(repeat),
                          "--warmup", str(warmup), "--ca-file", str(TLS / "loopback.crt")],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def median(xs):
    return float(np.median(xs))


def run_tensorstore(url, slices, threads, repeat, warmup, child=TS_CHILD):
    out = subprocess.run([sys.executable, "-c", child, url, str(threads), str(repeat), str(warmup)],
                         input=json.dumps(slices), check=True, capture_output=True, text=True,
                         env=TS_ENV).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=float, nargs="*", default=[20, 100])
    parser.add_argument("--mbps", type=float, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="timed passes of read_all (others: 1)")
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed passes of read_all before the timed ones, for both readers (others: 1)")
    parser.add_argument("--chunks", type=int, default=64)
    parser.add_argument("--boxes", type=int, default=100)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--ops", nargs="*")
    parser.add_argument("--zaro-args", default="", help="extra ./zaro bench options, e.g. '--io-concurrency 64'")
    parser.add_argument("--store", choices=["http", "s3"], default="http",
                        help="s3: the server answers path-style S3; zaro reads s3://, tensorstore its s3 kvstore")
    parser.add_argument("--s3-client", choices=["zaro", "sdk"],
                        help="with --store s3: the client of zaro's object GETs (the URL's client= option)")
    parser.add_argument("--s3-addressing", choices=["path", "virtual"], default="path",
                        help="with --store s3: zaro's requests path style, or virtual-host style (bench.localhost)")
    parser.add_argument("--anchors", action="store_true",
                        help="read all: also the fetch floor and the local read (second table)")
    parser.add_argument("--no-tensorstore", action="store_true")
    parser.add_argument("--tls", action="store_true", help="the server speaks https (testdata/tls's certificate)")
    parser.add_argument("--zaro-http-client", choices=["zaro", "jdk"], default="zaro",
                        help="jdk: zaro's GETs through java.net.http (-Dzaro.http.client=jdk)")
    parser.add_argument("--server-nice", type=int, metavar="N",
                        help="run the server at this scheduling priority (nice value; below 0 needs root):"
                             " -10 lets it take a core ahead of the reader, as a server on its own machine would")
    args = parser.parse_args()
    if args.server_nice is not None and args.server_nice < 0 and os.geteuid() != 0:
        parser.error(f"--server-nice {args.server_nice}: a priority above the default needs root (CAP_SYS_NICE)")
    global ZARO_ENV, TS_ENV
    scheme = "https" if args.tls else "http"
    server_extra = ["--tls-cert", str(TLS / "loopback.crt"), "--tls-key", str(TLS / "loopback.key")] if args.tls else []
    java_opts = []
    if args.tls:
        java_opts += [f"-Djavax.net.ssl.trustStore={TLS / 'loopback-trust.p12'}",
                      "-Djavax.net.ssl.trustStorePassword=zarotest", "-Djavax.net.ssl.trustStoreType=PKCS12"]
        TS_ENV = dict(os.environ, TENSORSTORE_CA_BUNDLE=str(TLS / "loopback.crt"))
    if args.zaro_http_client == "jdk":
        java_opts.append("-Dzaro.http.client=jdk")
    if args.s3_addressing == "virtual":
        java_opts.append(f"-Djdk.net.hosts.file={HOSTS}")
    if java_opts:
        ZARO_ENV = dict(os.environ, ZARO_JAVA_OPTS=" ".join(java_opts + [os.environ.get("ZARO_JAVA_OPTS", "")]))
    anchors = []
    for name in args.datasets:
        if not (DATA / f"{name}_{N}.zarr").exists():
            subprocess.run([sys.executable, str(HERE / "make_datasets.py"), "--size", str(N), "--only", name],
                           check=True)
    print("| latency ms | dataset | operation | zaro s | tensorstore s | ts/zaro | zaro p50/p99 ms"
          " | ts p50/p99 ms | zaro requests (peak in flight) | ts requests (peak in flight)"
          " | zaro peak MiB | ts peak RSS MiB |")
    print("|---" * 12 + "|")
    for latency in args.latency_ms:
        server = Server(latency, args.mbps,
                        (["--s3-bucket", S3_BUCKET] if args.store == "s3" else []) + server_extra,
                        nice=args.server_nice)
        try:
            for name in args.datasets:
                url = f"{scheme}://127.0.0.1:{server.port}/{name}_{N}.zarr"
                ts_url, ts_child = url, TS_CHILD
                if args.store == "s3":
                    url, ts_url = s3_urls(server.port, f"{name}_{N}.zarr", scheme,
                                          args.s3_addressing == "virtual")
                    if args.s3_client:
                        url += f"&client={args.s3_client}"
                    ts_child = TS_S3_CHILD
                for op, slices in operations(DATASETS[name], args.chunks, args.boxes).items():
                    if args.ops and op not in args.ops:
                        continue
                    repeat = args.repeat if op == "read_all" else 1
                    warmup = args.warmup if op == "read_all" else 1
                    server.stats()
                    z = run_zaro(url, slices, args.threads, repeat, args.zaro_args.split(), warmup)
                    zreq = server.stats()
                    if args.anchors and op == "read_all":
                        # the same objects by plain GETs (in S3 mode, path style: /BUCKET/KEY)
                        prefix = f"/{S3_BUCKET}" if args.store == "s3" else ""
                        f = run_floor(f"{scheme}://127.0.0.1:{server.port}{prefix}/{name}_{N}.zarr",
                                      DATA / f"{name}_{N}.zarr", zreq[1], repeat, warmup)
                        server.stats()
                        local = run_zaro(str(DATA / f"{name}_{N}.zarr"), slices, args.threads, repeat,
                                         args.zaro_args.split(), warmup)
                        anchors.append((latency, name, z, f, local))
                    if args.no_tensorstore:
                        t, treq = {"median_seconds": float("nan"), "peak_mib": float("nan")}, (0, 0)
                    else:
                        t = run_tensorstore(ts_url, slices, args.threads, repeat, warmup, ts_child)
                        treq = server.stats()
                    ms = lambda r: (f"{r['read_p50_seconds'] * 1e3:.0f}/{r['read_p99_seconds'] * 1e3:.0f}"
                                    if "read_p50_seconds" in r else "")
                    print(f"| {latency:g} | {name} | {op} | {z['median_seconds']:.3f} | {t['median_seconds']:.3f}"
                          f" | {t['median_seconds'] / z['median_seconds']:.2f} | {ms(z)} | {ms(t)}"
                          f" | {zreq[0]} ({zreq[1]}) | {treq[0]} ({treq[1]})"
                          f" | {z['peak_mib']:.0f} | {t['peak_mib']:.0f} |", flush=True)
        finally:
            server.close()
    if anchors:
        print()
        print("| latency ms | dataset | zaro s | fetch floor s (in flight) | local s | zaro / max(floor, local)"
              " | zaro CPU-s | local CPU-s | zaro / local CPU | floor client CPU-s | zaro first read s |")
        print("|---" * 11 + "|")
        for latency, name, z, f, local in anchors:
            bound = max(f["median_seconds"], local["median_seconds"])
            zc, lc = median(z["cpu_seconds"]), median(local["cpu_seconds"])
            first = z["warmup_seconds"][0] if z.get("warmup_seconds") else float("nan")
            print(f"| {latency:g} | {name} | {z['median_seconds']:.3f} | {f['median_seconds']:.3f}"
                  f" ({f['concurrency']}) | {local['median_seconds']:.3f}"
                  f" | {z['median_seconds'] / bound:.2f} | {zc:.3f} | {lc:.3f} | {zc / lc:.2f}"
                  f" | {median(f['cpu_seconds']):.3f} | {first:.3f} |", flush=True)


if __name__ == "__main__":
    main()
