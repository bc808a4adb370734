package io.agentbus.mcp.server;

import io.agentbus.bus.FailureCodes;
import io.agentbus.mcp.McpException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;

/**
 * How a failed {@code tools/call} is answered on the bus: a failure code per
 * {@link McpException} kind, the message starting with {@link McpServerVerticle#NOT_STARTED}
 * when the request never reached the server, and a missing OAuth authorization answered by
 * {@link Authorizations} (which tells the caller's user).
 */
final class ToolCallFailures {

  private ToolCallFailures() {
  }

  /** @return the failure for {@code err} of the call {@code req} */
  static ReplyException of(Throwable err, ToolCallRequest req, Authorizations authorizations) {
    if (Authorizations.isRequired(err) && ((McpException) err).data() instanceof JsonObject needed) {
      return authorizations.required(req, needed);
    }
    return of(err);
  }

  /** @return the failure for {@code err} */
  static ReplyException of(Throwable err) {
    if (err instanceof ReplyException re) {
      return re;
    }
    if (err instanceof McpException e) {
      return switch (e.kind()) {
        case TIMEOUT -> failure(FailureCodes.TIMEOUT, e.getMessage());
        case RPC_ERROR, PROTOCOL -> failure(FailureCodes.RPC_ERROR, e.getMessage());
        // the connection's pending map was full: the request was never sent
        case QUEUE_FULL -> failure(FailureCodes.QUEUE_FULL, McpServerVerticle.NOT_STARTED + e.getMessage());
        case NOT_CONNECTED -> failure(FailureCodes.UNAVAILABLE, McpServerVerticle.NOT_STARTED + e.getMessage());
        case CONNECTION_CLOSED, TRANSPORT, UNSUPPORTED_VERSION, AUTHORIZATION_REQUIRED, AUTHORIZATION_FAILED ->
          failure(FailureCodes.UNAVAILABLE, e.getMessage());
      };
    }
    return failure(FailureCodes.INTERNAL, String.valueOf(err.getMessage()));
  }

  static ReplyException failure(int code, String message) {
    return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, code, message);
  }
}
