package io.agentbus.mcp.transport.http;

import io.agentbus.limits.LogRateLimit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warnings about what one server sends over HTTP that is not a JSON-RPC message
 * (oversized or broken SSE events, bodies that are not JSON or not an object), one
 * {@link LogRateLimit} per kind. A transport owns one and shares it with all its streams, so
 * that a server streaming garbage costs a few lines and a count per kind, however many
 * responses it spreads them over. Safe on any thread.
 */
final class MessageWarnings {

  /** The logger of {@link MessageReader}, which writes the warnings. */
  static final Logger LOG = LoggerFactory.getLogger(MessageReader.class);

  final LogRateLimit oversized;
  final LogRateLimit badEvent;
  final LogRateLimit notJson;
  final LogRateLimit notObject;

  /** @param timers writes the suppressed counts when a window ends; may be {@code null} */
  MessageWarnings(String name, LogRateLimit.Scheduler timers) {
    this.oversized = LogRateLimit.warnings(LOG, name, "SSE events over the size limit", timers);
    this.badEvent = LogRateLimit.warnings(LOG, name, "SSE events that failed", timers);
    this.notJson = LogRateLimit.warnings(LOG, name, "messages that are not JSON", timers);
    this.notObject = LogRateLimit.warnings(LOG, name, "messages that are not a JSON-RPC object", timers);
  }

  /** Logs the counts of suppressed warnings not yet reported (the transport ends). */
  void flush() {
    oversized.flush();
    badEvent.flush();
    notJson.flush();
    notObject.flush();
  }
}
