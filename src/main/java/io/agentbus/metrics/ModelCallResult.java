package io.agentbus.metrics;

/** What {@link AgentbusMetrics#modelCall} records of a successful model call. */
public interface ModelCallResult {

  /** @return the stop reason, or null */
  String stopReason();

  /** @return the token counts, or null */
  TokenCounts usage();
}
