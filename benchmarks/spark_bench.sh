#!/usr/bin/env bash
# zaro-spark vs Spark's Parquet reader (same table, local[2]) and planning time vs chunk count.
#   .venv/bin/python benchmarks/make_spark_dataset.py && benchmarks/spark_bench.sh [REPEAT]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -o -pl zaro-spark -am compile
mvn -B -q -o -pl zaro-spark dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.cp
cp="zaro-arrow/target/classes:zaro-s3/target/classes:zaro-parquet/target/classes:zaro-spark/target/classes"
cp="$cp:$(cat zaro-spark/target/bench.cp)"
flags=$(sed -n '/<spark.jvm.flags>/,/<\/spark.jvm.flags>/p' zaro-spark/pom.xml | sed 's/<[^>]*>//g' | tr '\n' ' ')
exec java -Xmx3g $flags -cp "$cp" benchmarks/spark/SparkBenchmark.java benchmarks/data/spark "${1:-5}"
