package io.agentbus.mcp.transport;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;

/**
 * Moves JSON-RPC messages between an {@code McpClient} and one MCP server. A transport is
 * bound to the client's context: it calls every handler on that context, and its methods
 * are called from that context only.
 */
public interface McpTransport {

  /**
   * Brings the transport up (spawns the process, ...). Every message the server sends is
   * then handed to {@code messageHandler}.
   */
  Future<Void> start(Handler<JsonObject> messageHandler);

  /**
   * Sends one message. The future completes once the message is accepted for delivery;
   * it fails when the transport is closed or its outbound queue is full. Never blocks.
   */
  Future<Void> send(JsonObject message);

  /**
   * Called by the client once {@code initialize} has succeeded and before
   * {@code notifications/initialized} is sent, with the negotiated protocol version. It must
   * complete promptly and send nothing: the Streamable HTTP transport only records the version
   * here and opens its optional GET stream in the background after {@code initialized}.
   */
  default Future<Void> handshakeCompleted(String protocolVersion) {
    return Future.succeededFuture();
  }

  /**
   * Sets the handler called once when the transport ends on its own (process exit, stream
   * lost for good); not called after {@link #close()}. The cause describes why.
   */
  McpTransport closeHandler(Handler<Throwable> handler);

  /** Shuts the transport down gracefully; completes when it is fully closed. */
  Future<Void> close();

  /** @return a short description for logs and status (pid, url, ...) without secrets */
  JsonObject describe();
}
