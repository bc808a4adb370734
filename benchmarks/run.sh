#!/usr/bin/env bash
# Builds agentbus (installed into the local Maven repository) and the benchmark jar, then runs
# a scenario:  bash benchmarks/run.sh SCENARIO [--smoke] [--json] [--report DIR] [--option value]...
# SCENARIO: throughput | concurrency | fanout | stdio-pipeline | all | cluster-tools (opt-in; see benchmarks/README.md)
# Env: BENCH_JAVA=/path/to/java (default: the newest JDK >= 21 found, for virtual threads),
#      BENCH_SKIP_BUILD=1 (reuse the built jar), BENCH_JVM_OPTS (extra JVM options).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${BENCH_SKIP_BUILD:-}" != 1 || ! -f benchmarks/target/agentbus-benchmarks.jar ]]; then
  mvn -B -q install -DskipTests -Dnpm.skip=true
  mvn -B -q -f benchmarks/pom.xml package
fi
source benchmarks/java.sh
exec "$BENCH_JAVA" -Xss512k ${BENCH_JVM_OPTS:-} -jar benchmarks/target/agentbus-benchmarks.jar "$@"
