#!/usr/bin/env bash
# JMH codec benchmarks beside their limits. Extra arguments go to JMH (e.g. a regex, -f 1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -x .venv/bin/python ] || { python3 -m venv .venv && PIP_RETRIES=0 .venv/bin/pip install -q -r tests/python/requirements.txt; }
.venv/bin/python benchmarks/make_codec_frames.py >/dev/null
mvn -B -q -Dstyle.color=never -Pbenchmarks -DskipTests package -pl benchmarks/jmh -am
t=benchmarks/jmh/target
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$t/classes:$t/lib/*" org.openjdk.jmh.Main "$@"
.venv/bin/python benchmarks/make_codec_frames.py --limit   # BloscBenchmarks' limits: c-blosc on the same frames
