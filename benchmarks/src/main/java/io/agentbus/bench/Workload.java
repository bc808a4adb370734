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
 */
record Workload(int k, long modelMs, long modelJitterMs, long toolMs, String mcp) {

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
      .put("mcp", mcp);
  }
}
