package io.agentbus.mcp.impl;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.ServerRequest;
import io.agentbus.mcp.ServerRequestHandler;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.agentbus.mcp.transport.McpTransport;
import io.vertx.core.json.JsonObject;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the server's requests to a {@link ServerRequestHandler} and sends its answers back,
 * naming the tool call each request belongs to when that can be told. At most
 * {@link #MAX_IN_FLIGHT} are answered at once; more get {@code -32603} at once. Confined to
 * the client's context.
 */
final class ServerRequestRelay {

  private static final Logger LOG = LoggerFactory.getLogger(ServerRequestRelay.class);
  /** Server requests waiting for their answer at once, per connection. */
  static final int MAX_IN_FLIGHT = 256;
  /** The {@code _meta} key a server may use to name the request a request of its own belongs to. */
  static final String RELATED_REQUEST_META = "io.modelcontextprotocol/related-request-id";
  private static final Set<String> METHODS = Set.of("roots/list", "sampling/createMessage", "elicitation/create");

  private final String server;
  private final ServerRequestHandler handler;
  private final McpTransport transport;
  private final PendingRequests pending;
  private final BooleanSupplier open;
  private int inFlight;

  ServerRequestRelay(String server, ServerRequestHandler handler, McpTransport transport, PendingRequests pending,
                     BooleanSupplier open) {
    this.server = server;
    this.handler = handler;
    this.transport = transport;
    this.pending = pending;
    this.open = open;
  }

  JsonObject capabilities() {
    JsonObject caps = handler.capabilities();
    return caps == null ? new JsonObject() : caps.copy();
  }

  boolean handles(String method) {
    return METHODS.contains(method);
  }

  void handle(Object id, String method, Object rawParams, String relatedKey) {
    if (rawParams != null && !(rawParams instanceof JsonObject)) {
      transport.send(JsonRpc.error(id, JsonRpc.INVALID_PARAMS, method + ": params must be an object"));
      return;
    }
    if (inFlight >= MAX_IN_FLIGHT) {
      transport.send(JsonRpc.error(id, JsonRpc.INTERNAL_ERROR, "too many requests from server '" + server
        + "' waiting for an answer (" + MAX_IN_FLIGHT + ")"));
      return;
    }
    JsonObject params = rawParams == null ? new JsonObject() : (JsonObject) rawParams;
    Object caller = pending.callerOf(relatedKey);
    if (caller == null) {
      caller = pending.callerOf(metaRelated(params));
    }
    ServerRequest request = new ServerRequest(method, params, caller);
    Object resolved = handler.callerOf(request);
    // while the user (or the model) answers, the call's idle timeout must not end it
    String held = "roots/list".equals(method) ? null : pending.keyOf(resolved);
    pending.hold(held);
    inFlight++;
    handler.handle(new ServerRequest(method, params, resolved)).onComplete(ar -> {
      inFlight--;
      pending.release(held);
      if (!open.getAsBoolean()) {
        return;
      }
      if (ar.succeeded()) {
        transport.send(JsonRpc.result(id, ar.result() == null ? new JsonObject() : ar.result()));
      } else if (ar.cause() instanceof McpException e && e.rpcCode() != null) {
        transport.send(JsonRpc.error(id, e.rpcCode(), String.valueOf(e.getMessage())));
      } else {
        LOG.debug("[{}] {} failed: {}", server, method, ar.cause().getMessage());
        transport.send(JsonRpc.error(id, JsonRpc.INTERNAL_ERROR, method + " failed: " + ar.cause().getMessage()));
      }
    });
  }

  /** @return the key of the request the params' {@code _meta} names (related request id, else progress token) */
  private static String metaRelated(JsonObject params) {
    if (!(params.getValue("_meta") instanceof JsonObject meta)) {
      return null;
    }
    Object related = meta.getValue(RELATED_REQUEST_META);
    return JsonRpc.idKey(related != null ? related : meta.getValue("progressToken"));
  }
}
