package io.agentbus.mcp;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Answers the requests a server sends to the client ({@code roots/list},
 * {@code sampling/createMessage}, {@code elicitation/create}); {@code ping} is always answered
 * by the client itself. Called on the client's context.
 */
public interface ServerRequestHandler {

  /** @return the client capabilities to declare in {@code initialize} (e.g. {@code {elicitation: {form: {}}}}) */
  JsonObject capabilities();

  /**
   * @return the tool call the request belongs to (a {@link CallOptions#getCaller() caller} tag),
   *     when the handler can tell better than {@link ServerRequest#caller()}; while an
   *     {@code elicitation/create} or {@code sampling/createMessage} of a call is answered, that
   *     call's idle timeout is suspended (its hard limit still applies)
   */
  default Object callerOf(ServerRequest request) {
    return request.caller();
  }

  /**
   * Answers one request. The future's result is sent as the JSON-RPC result; a failure with an
   * {@link McpException} of kind {@code RPC_ERROR} is sent as that error code and message, any
   * other failure as {@code -32603} with its message.
   */
  Future<JsonObject> handle(ServerRequest request);
}
