package io.agentbus.mcp.impl;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.json.JsonObject;

/** Turns a JSON-RPC {@code error} member into an {@link McpException}. */
final class RpcErrors {

  private RpcErrors() {
  }

  static McpException toException(String server, String method, Object error) {
    if (!(error instanceof JsonObject err)) {
      return new McpException(Kind.PROTOCOL, "server '" + server + "' answered " + method + " with a malformed error");
    }
    Integer code = err.getValue("code") instanceof Number n ? n.intValue() : null;
    String message = err.getValue("message") instanceof String m ? m : "(no message)";
    return new McpException(Kind.RPC_ERROR, "server '" + server + "' answered " + method + " with error "
      + code + ": " + message, code, err.getValue("data"), null);
  }
}
