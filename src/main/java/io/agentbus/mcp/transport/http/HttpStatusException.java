package io.agentbus.mcp.transport.http;

import io.vertx.core.VertxException;
import java.util.List;

/**
 * A non-2xx answer from an MCP HTTP endpoint. Carries the status and a short, sanitized
 * excerpt of the body (never request headers), so callers can tell a lost session or a
 * legacy server apart from other failures.
 */
final class HttpStatusException extends VertxException {

  private final int status;
  private final String body;
  private final List<String> challenges;

  HttpStatusException(String message, int status, String body) {
    this(message, status, body, List.of());
  }

  HttpStatusException(String message, int status, String body, List<String> challenges) {
    super(message, true);
    this.status = status;
    this.body = body == null ? "" : body;
    this.challenges = List.copyOf(challenges);
  }

  /** @return the response's {@code WWW-Authenticate} values (for the OAuth client; not in the message) */
  List<String> challenges() {
    return challenges;
  }

  /** @return the HTTP status code */
  int status() {
    return status;
  }

  /** @return up to a few hundred characters of the response body (may be empty) */
  String body() {
    return body;
  }

  /**
   * Whether the server says the session is gone: 404, or 400 with a body like the
   * TypeScript SDK's "No valid session ID provided" / "Server not initialized".
   */
  boolean sessionGone() {
    if (status == 404) {
      return true;
    }
    if (status != 400) {
      return false;
    }
    String b = body.toLowerCase(java.util.Locale.ROOT);
    return b.contains("session") || b.contains("not initialized");
  }
}
