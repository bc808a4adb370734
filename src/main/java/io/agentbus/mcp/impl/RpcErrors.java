package io.agentbus.mcp.impl;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.json.JsonObject;

/**
 * Turns a JSON-RPC {@code error} member into an {@link McpException}: {@link Kind#RPC_ERROR}
 * with the server's code, message and data when it is a JSON-RPC error object (an integer
 * {@code code}, a string {@code message}); {@link Kind#PROTOCOL} naming what is wrong when it
 * is not.
 */
final class RpcErrors {

  private RpcErrors() {
  }

  static McpException toException(String server, String method, Object error) {
    String answered = "server '" + server + "' answered " + method;
    if (!(error instanceof JsonObject err)) {
      return new McpException(Kind.PROTOCOL, answered + " with a malformed error: \"error\" is "
        + JsonRpc.describe(error) + ", not an object");
    }
    Object code = err.getValue("code");
    Object message = err.getValue("message");
    String problem = null;
    if (!(code instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
      || Math.abs(n.doubleValue()) > Integer.MAX_VALUE) {
      problem = code == null ? "\"error.code\" is missing" : "\"error.code\" is " + JsonRpc.describe(code) + ", not an integer";
    } else if (!(message instanceof String)) {
      problem = message == null ? "\"error.message\" is missing" : "\"error.message\" is " + JsonRpc.describe(message)
        + ", not a string";
    }
    if (problem != null) {
      return new McpException(Kind.PROTOCOL, answered + " with a malformed error: " + problem
        + (message instanceof String m ? " (message: " + m + ")" : ""));
    }
    int rpcCode = ((Number) code).intValue();
    return new McpException(Kind.RPC_ERROR, answered + " with error " + rpcCode + ": " + message, rpcCode,
      err.getValue("data"), null);
  }
}
