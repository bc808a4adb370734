/**
 * JMH microbenchmarks of Agentbus' hot paths (JSON-RPC encode/decode, tool result adaptation,
 * catalog projection, SSE parsing). Run them with {@code bash benchmarks/jmh.sh [regex] [JMH
 * options]}; see benchmarks/README.md, section BENCHMARKING.
 */
package io.agentbus.bench.jmh;
