#!/usr/bin/env bash
# Builds agentbus (installed into the local Maven repository) and the benchmark jar, then
# runs it: bash benchmarks/run.sh [fanout] [--t-ms 50] [--ks 1,3,8] [--reps 30] [--warmup 20] [--noop-reps 500]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q install -DskipTests -Dnpm.skip=true
mvn -B -q -f benchmarks/pom.xml package
exec java -jar benchmarks/target/agentbus-benchmarks.jar "$@"
