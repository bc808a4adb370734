#!/usr/bin/env bash
# JMH microbenchmarks of the hot paths (io.agentbus.bench.jmh):
#   bash benchmarks/jmh.sh [REGEX] [JMH options, e.g. -f 1 -wi 3 -i 5 -prof gc]
# REGEX selects benchmarks (default: all). BENCH_SKIP_BUILD=1 reuses the built jar.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${BENCH_SKIP_BUILD:-}" != 1 || ! -f benchmarks/target/agentbus-benchmarks.jar ]]; then
  mvn -B -q install -DskipTests -Dnpm.skip=true
  mvn -B -q -f benchmarks/pom.xml package
fi
source benchmarks/java.sh
exec "$BENCH_JAVA" -cp benchmarks/target/agentbus-benchmarks.jar org.openjdk.jmh.Main "${@:-io.agentbus.bench.jmh}"
