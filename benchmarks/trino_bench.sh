#!/usr/bin/env bash
# zaro-trino vs Trino's Hive connector on the same table as Parquet, one local cluster
# (coordinator + 2 workers); the table of make_spark_dataset.py.
#   .venv/bin/python benchmarks/make_spark_dataset.py && benchmarks/trino_bench.sh [REPEAT] [SPLIT_SIZE]
# (Trino's log takes over standard output: the table is printed on standard error)
set -euo pipefail
cd "$(dirname "$0")/.."
jhome="${TRINO_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
# the test class path (Trino's Hive connector is a test dependency), siblings' jars included
mvn -B -q -o -pl zaro-trino -am package dependency:build-classpath -DskipTests \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.cp
cp="zaro-trino/target/zaro-trino-0.1.0-SNAPSHOT.jar:$(cat zaro-trino/target/bench.cp)"
flags=$(sed -n '/<trino.jvm.flags>/,/<\/trino.jvm.flags>/p' zaro-trino/pom.xml | sed 's/<[^>]*>//g' | tr '\n' ' ')
exec "$jhome/bin/java" -Xmx8g $flags -Duser.timezone=UTC -cp "$cp" benchmarks/trino/TrinoBenchmark.java \
  benchmarks/data/spark "${1:-5}" "${2:-128MB}"
