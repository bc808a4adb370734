package io.agentbus.dispatch;

import io.agentbus.bus.FailureCodes;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

/** Short, model-readable reasons for tool calls that produced no result. */
final class CallFailures {

  private CallFailures() {
  }

  /**
   * @param err the failure of the {@code tools/call} request
   * @param server the MCP server
   * @param busTimeoutMs the bus timeout used
   */
  static String reason(Throwable err, String server, long busTimeoutMs) {
    if (!(err instanceof ReplyException re)) {
      return "The tool call failed: " + err.getMessage();
    }
    if (re.failureType() == ReplyFailure.NO_HANDLERS) {
      return "The tool's server '" + server + "' is not running.";
    }
    if (re.failureType() == ReplyFailure.TIMEOUT) {
      return "The tool call timed out: no answer from server '" + server + "' within " + busTimeoutMs + " ms.";
    }
    String detail = re.getMessage() == null ? "" : " (" + re.getMessage() + ")";
    return switch (re.failureCode()) {
      case FailureCodes.TIMEOUT -> "The tool call timed out and was cancelled" + detail + ".";
      case FailureCodes.UNAVAILABLE -> "The tool's server '" + server + "' is unavailable" + detail + ".";
      case FailureCodes.QUEUE_FULL -> "The tool's server '" + server + "' is busy: too many calls are queued. Try again later.";
      case FailureCodes.RPC_ERROR -> "The tool's server returned an error" + detail + ".";
      case FailureCodes.FORBIDDEN -> "This tool is disabled by configuration.";
      case FailureCodes.BAD_REQUEST -> "The tool call was rejected" + detail + ".";
      default -> "The tool call failed" + detail + ".";
    };
  }
}
