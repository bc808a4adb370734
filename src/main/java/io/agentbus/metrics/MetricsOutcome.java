package io.agentbus.metrics;

/**
 * A failure that names its own metrics label: the {@code outcome} of a tool call or the
 * {@code status} of a model call (e.g. {@code timeout}, {@code rate_limited}). Implemented by
 * the MCP and model exceptions, so this package depends on neither.
 */
public interface MetricsOutcome {

  /** @return the label value, lower case (the failure kind's name) */
  String metricsOutcome();
}
