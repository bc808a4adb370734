package io.agentbus.bench;

import io.vertx.core.json.JsonObject;

/**
 * The conversation workload shared by every subject: each conversation is model call → K
 * parallel tool_use → K MCP calls → model call → end_turn, against the mock model server (in
 * rules mode) and the bench MCP server.
 *
 * @param k tools per turn
 * @param modelMs fixed model latency per call
 * @param modelJitterMs extra uniform random model latency in [0, jitter]
 * @param toolMs latency of each tool call
 * @param mcp {@code stdio} or {@code http} (Streamable HTTP)
 * @param offered tools offered to the model per call ({@code >= k}): {@code t0..t<offered-1>},
 *     of which the first K are called; the others carry schemas of a realistic size (see
 *     {@link BenchMcpServer}), as a host with several MCP servers offers
 */
record Workload(int k, long modelMs, long modelJitterMs, long toolMs, String mcp, int offered) {

  /** The workload offering exactly the K tools it calls. */
  Workload(int k, long modelMs, long modelJitterMs, long toolMs, String mcp) {
    this(k, modelMs, modelJitterMs, toolMs, mcp, k);
  }

  Workload {
    if (offered < k) {
      throw new IllegalArgumentException("--offered " + offered + " is below --k " + k);
    }
  }

  /** @return the latency injected into one conversation (2 model calls + one parallel tool batch) */
  long injectedMs() {
    return 2 * modelMs + toolMs;
  }

  /** @return the mock model server options for this workload (rules mode, K parallel tools) */
  JsonObject mockOptions() {
    return new JsonObject().put("mode", "rules").put("maxParallelTools", k).put("latencyMs", modelMs)
      .put("latencyJitterMs", modelJitterMs);
  }

  JsonObject toJson() {
    return new JsonObject().put("k", k).put("modelMs", modelMs).put("modelJitterMs", modelJitterMs).put("toolMs", toolMs)
      .put("mcp", mcp).put("offered", offered);
  }
}
