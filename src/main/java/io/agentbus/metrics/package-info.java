/**
 * Agentbus metrics: one Micrometer {@link io.micrometer.prometheusmetrics.PrometheusMeterRegistry}
 * per Vert.x instance ({@link io.agentbus.metrics.AgentbusMetrics#get}), fed by one-line calls
 * in the MCP server verticle, the turn runner, the conversation verticle and the HTTP API, and
 * scraped by {@code GET /metrics}.
 */
package io.agentbus.metrics;
