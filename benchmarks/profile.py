"""Profiles `./zaro bench` with Java Flight Recorder and prints where the samples fell.

  .venv/bin/python benchmarks/profile.py DATASET [--slice S | --slices-file F] [--repeat N]
                                         [--threads T] [--top K] [--jfr OUT.jfr]

DATASET is a name from make_datasets.py (e.g. sharded_128_32) or a store path. JFR samples
Java frames (jdk.ExecutionSample) and threads inside native code such as zstd-jni
(jdk.NativeMethodSample); time the kernel spends on a thread's behalf (page faults) is charged
to the Java frame that caused it. Prints the top frames by self samples, then by inclusive
samples (a method counted once per stack).
"""
import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))


def frame_name(frame):
    return frame["method"]["type"]["name"].replace("/", ".") + "." + frame["method"]["name"]


def summarize(jfr, top):
    out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample,jdk.NativeMethodSample", str(jfr)],
                         check=True, capture_output=True, text=True).stdout
    self_counts, inclusive, samples = collections.Counter(), collections.Counter(), 0
    for event in json.loads(out)["recording"]["events"]:
        trace = event["values"].get("stackTrace") or {}
        frames = trace.get("frames") or []
        if not frames:
            continue
        samples += 1
        kind = "native" if event["type"].endswith("NativeMethodSample") else "java"
        self_counts[f"{frame_name(frames[0])} ({kind})"] += 1
        for name in {frame_name(f) for f in frames}:
            inclusive[name] += 1
    print(f"{samples} samples")
    print("self:")
    for name, n in self_counts.most_common(top):
        print(f"  {100 * n / samples:5.1f}%  {name}")
    print("inclusive:")
    for name, n in inclusive.most_common(top):
        print(f"  {100 * n / samples:5.1f}%  {name}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset")
    parser.add_argument("--slice")
    parser.add_argument("--slices-file")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--jfr")
    args = parser.parse_args()
    store = pathlib.Path(args.dataset)
    if not store.exists():
        import make_datasets
        store = make_datasets.DATA / f"{args.dataset}_512.zarr"
        if not store.exists():
            subprocess.run([sys.executable, str(HERE / "make_datasets.py"), "--only", args.dataset], check=True)
    jfr = pathlib.Path(args.jfr or tempfile.mkstemp(suffix=".jfr")[1])
    command = [str(ROOT / "zaro"), "bench", str(store), "/", "--repeat", str(args.repeat), "--warmup", "3",
               "--threads", str(args.threads)]
    if args.slice:
        command += ["--slice", args.slice]
    if args.slices_file:
        command += ["--slices-file", args.slices_file]
    env = dict(os.environ, ZARO_JAVA_OPTS=f"-XX:StartFlightRecording=filename={jfr},settings=profile")
    result = json.loads(subprocess.run(command, check=True, capture_output=True, text=True, env=env)
                        .stdout.strip().splitlines()[-1])
    print(f"{store.name}: median {result['median_seconds'] * 1e3:.2f} ms per pass; recording {jfr}")
    summarize(jfr, args.top)


if __name__ == "__main__":
    main()
