package io.agentbus.mcp.impl;

import io.agentbus.limits.LogRateLimit;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Matches a connection's responses to its pending requests and holds them to JSON-RPC 2.0
 * and, for {@code tools/call}, to the {@code CallToolResult} schema. A response that breaks
 * them fails the request it answers at once, with a {@link Kind#PROTOCOL} error saying what
 * was wrong; one that answers no request is dropped with a rate-limited warning. Ids match
 * with their JSON type, but a response whose id has the wrong type ({@code "5"} while request
 * {@code 5} is pending) fails that request rather than leaving it to time out. Confined to
 * the connection's context.
 */
final class Responses {

  private static final Logger LOG = LoggerFactory.getLogger(McpClientImpl.class);
  private static final int SHOWN_CHARS = 100;

  private final String name;
  private final PendingRequests pending;
  private final LogRateLimit unmatched;

  /** @param timers writes the count of suppressed warnings when a window ends; may be {@code null} */
  Responses(String name, PendingRequests pending, LogRateLimit.Scheduler timers) {
    this.name = name;
    this.pending = pending;
    this.unmatched = LogRateLimit.warnings(LOG, name, "responses that answer no pending request", timers);
  }

  /**
   * Completes or fails the request {@code msg} answers, or drops it with a (rate-limited)
   * warning when it answers none.
   *
   * @param versionProblem what is wrong with its {@code jsonrpc} member, or {@code null}
   */
  void handle(JsonObject msg, String versionProblem) {
    Object id = msg.getValue("id");
    String key = JsonRpc.idKey(id);
    PendingRequests.Entry e = key == null ? null : pending.remove(key);
    if (e == null) {
      onUnmatchedResponse(msg, id, versionProblem);
      return;
    }
    if (versionProblem != null) {
      e.promise.fail(brokeJsonRpc(e, versionProblem));
      return;
    }
    Object error = msg.getValue("error");
    if (msg.containsKey("result") && msg.containsKey("error")) {
      e.promise.fail(brokeJsonRpc(e, "the response has both \"result\" and \"error\""));
      return;
    }
    if (error != null) {
      e.promise.fail(RpcErrors.toException(name, e.method, error));
      return;
    }
    Object result = msg.getValue("result");
    if (!(result instanceof JsonObject r)) {
      e.promise.fail(new McpException(Kind.PROTOCOL, "server '" + name + "' answered " + e.method
        + " with a result that is not an object"));
      return;
    }
    String problem = "tools/call".equals(e.method) ? CallToolResultCheck.problem(r) : null;
    if (problem != null) {
      e.promise.fail(new McpException(Kind.PROTOCOL, "server '" + name + "' answered tools/call with an invalid "
        + "CallToolResult: " + problem));
      return;
    }
    e.promise.complete(r);
  }

  /**
   * A response whose id matches no pending request. One whose id has the wrong JSON type
   * ({@code "5"} for the request {@code 5}) fails that request at once: ids match only with
   * their type, and waiting for its timeout would only hide the server's bug.
   */
  private void onUnmatchedResponse(JsonObject msg, Object id, String versionProblem) {
    String other = JsonRpc.otherTypeKey(id);
    PendingRequests.Entry meant = other == null ? null : pending.remove(other);
    if (meant != null) {
      meant.promise.fail(brokeJsonRpc(meant, "response id " + typed(id) + "; the request's id was "
        + JsonRpc.describe(meant.id)));
      return;
    }
    if (!unmatched.permit()) {
      return;
    }
    if (versionProblem != null) {
      LOG.warn("[{}] dropped a response that is not JSON-RPC 2.0 (id {}): {}", name, shownId(id), versionProblem);
    } else if (JsonRpc.idKey(id) == null && msg.getValue("error") instanceof JsonObject err) {
      LOG.warn("[{}] error response without a usable id: {} {}", name, shortText(err.getValue("code")),
        shortText(err.getValue("message")));
    } else {
      LOG.warn("[{}] dropped a response with unknown id {}", name, shownId(id));
    }
  }

  private McpException brokeJsonRpc(PendingRequests.Entry e, String problem) {
    return new McpException(Kind.PROTOCOL, "server '" + name + "' broke JSON-RPC 2.0 answering " + e.method + ": " + problem);
  }

  /** @return {@code "5" is a string} or {@code 5 is a number}: an id with its JSON type */
  private static String typed(Object id) {
    return id instanceof String s ? shownId(s) + " is a string" : id + " is a number";
  }

  private static String shownId(Object id) {
    return id instanceof String s ? Json.encode(shortText(s)) : shortText(id);
  }

  /** @return the value as text, cut at {@value #SHOWN_CHARS} characters (for a log line) */
  static String shortText(Object value) {
    String s = String.valueOf(value);
    return s.length() > SHOWN_CHARS ? s.substring(0, SHOWN_CHARS) + "..." : s;
  }
  /** Logs the count of suppressed warnings not yet reported (the connection ends). */
  void flush() {
    unmatched.flush();
  }
}
