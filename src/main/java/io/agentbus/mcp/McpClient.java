package io.agentbus.mcp;

import io.agentbus.mcp.impl.McpClientImpl;
import io.agentbus.mcp.transport.McpTransport;
import io.agentbus.mcp.transport.McpTransports;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Objects;

/**
 * One connection to one MCP server: the {@code initialize} handshake, tool listing with
 * paging, tool calls with timeouts, progress and cancellation. The client lives on the
 * context that created it; its handlers run there and its methods may be called from any
 * thread.
 */
public interface McpClient {

  /** Protocol versions we accept from servers, newest (the one we offer) first. */
  List<String> SUPPORTED_PROTOCOL_VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");

  /** Connection states. */
  enum Status {
    NEW, CONNECTING, INITIALIZING, READY, CLOSING, CLOSED
  }

  /** A client for the server the options describe, bound to the caller's context. */
  static McpClient create(Vertx vertx, McpServerOptions options) {
    Objects.requireNonNull(options, "'options' cannot be null");
    var context = vertx.getOrCreateContext();
    return new McpClientImpl(vertx, context, options, McpTransports.create(vertx, context, options));
  }

  /**
   * A client for the server the options describe, bound to the caller's context, whose OAuth
   * tokens (for a server with {@code oauth}) are {@code tenant}'s: a per-tenant connection.
   *
   * @param tenant whose tokens it sends, or {@code null} for the shared identity
   */
  static McpClient forTenant(Vertx vertx, McpServerOptions options, String tenant) {
    Objects.requireNonNull(options, "'options' cannot be null");
    var context = vertx.getOrCreateContext();
    return new McpClientImpl(vertx, context, options, McpTransports.create(vertx, context, options, tenant));
  }

  /** A client over a given transport (which must be bound to the caller's context). */
  static McpClient create(Vertx vertx, McpServerOptions options, McpTransport transport) {
    return new McpClientImpl(vertx, vertx.getOrCreateContext(), options, transport);
  }

  /**
   * Starts the transport, runs {@code initialize} / {@code notifications/initialized} and
   * lists the tools. Completes with the server's {@code InitializeResult} once the client is
   * {@link Status#READY}; fails within the connect timeout otherwise.
   */
  Future<JsonObject> connect();

  /**
   * Lists the server's tools (every {@code nextCursor} page), refreshes {@link #tools()} and
   * returns them. Tools that require task-augmented calls are left out.
   */
  Future<List<JsonObject>> listTools();

  /**
   * Calls a tool. Completes with the {@code CallToolResult} (which may carry
   * {@code isError: true}); fails with {@link McpException} on a JSON-RPC error, timeout or
   * lost connection.
   */
  Future<JsonObject> callTool(String name, JsonObject arguments, CallOptions options);

  /** Sends {@code ping}; completes when the server answers. */
  Future<Void> ping();

  /** Sends any request with the server's default timeout and returns its result. */
  Future<JsonObject> request(String method, JsonObject params);

  /** Closes the connection; everything still pending fails with CONNECTION_CLOSED. */
  Future<Void> close();

  /** Called with the new tool list after each {@code notifications/tools/list_changed}. */
  McpClient toolsChangedHandler(Handler<List<JsonObject>> handler);

  /** Called with the params of each {@code notifications/message} (server log). */
  McpClient logMessageHandler(Handler<JsonObject> handler);

  /**
   * Sets who answers the server's requests ({@code roots/list}, {@code sampling/createMessage},
   * {@code elicitation/create}); its {@link ServerRequestHandler#capabilities()} are declared in
   * {@code initialize}, so set it before {@link #connect()}. Without one, those requests are
   * answered {@code -32601} and no capability is declared.
   */
  McpClient serverRequestHandler(ServerRequestHandler handler);

  /** Sends a notification (e.g. {@code notifications/roots/list_changed}); fails unless READY. */
  Future<Void> notify(String method, JsonObject params);

  /** Called once when the connection ends without {@link #close()} (crash, exit). */
  McpClient closeHandler(Handler<Throwable> handler);

  /** @return the current connection state */
  Status status();

  /** @return the tools from the last successful listing (empty before READY) */
  List<JsonObject> tools();

  /** @return the server's {@code InitializeResult}, or {@code null} before it arrived */
  JsonObject initializeResult();

  /** @return the negotiated protocol version, or {@code null} before initialize */
  String protocolVersion();

  /** @return transport details for status reports (pid, url; never secrets) */
  JsonObject describe();
}
