package io.agentbus.mcp.transport;

import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;

/**
 * A message handler that a transport may also tell which of the client's requests a server
 * message came with: over Streamable HTTP, a server request sent on the SSE stream of a
 * {@code tools/call} POST belongs to that call. Transports that cannot tell call
 * {@link #handle(JsonObject)}.
 */
public interface RelatedMessageHandler extends Handler<JsonObject> {

  /**
   * @param message the server's message
   * @param relatedKey the correlation key ({@code JsonRpc.idKey}) of the client request on whose
   *     stream it arrived, or {@code null}
   */
  void handle(JsonObject message, String relatedKey);

  @Override
  default void handle(JsonObject message) {
    handle(message, null);
  }

  /** Hands a message to {@code handler}, with its related key when the handler takes one. */
  static void deliver(Handler<JsonObject> handler, JsonObject message, String relatedKey) {
    if (handler instanceof RelatedMessageHandler r) {
      r.handle(message, relatedKey);
    } else {
      handler.handle(message);
    }
  }
}
