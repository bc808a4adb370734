package io.agentbus.dispatch;

import io.agentbus.bus.FailureCodes;
import io.agentbus.mcp.server.McpServerVerticle;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

/**
 * Short, model-readable reasons for tool calls that produced no result. They say honestly
 * whether the tool ran: a call that never reached its server says it was not run; a call that
 * was sent and then timed out, or whose server died under it, says its outcome is unknown, so
 * that the model checks before it repeats something that changes state.
 */
final class CallFailures {

  /** The answer of a call whose caller's deadline had already passed. */
  static final String NO_TIME_LEFT = "The tool was not run: the turn's time limit was reached before it could start.";

  private CallFailures() {
  }

  /**
   * @param err the failure of the {@code tools/call} request
   * @param server the MCP server
   * @param elapsedMs how long the call took, as the dispatcher saw it
   */
  static String reason(Throwable err, String server, long elapsedMs) {
    if (err instanceof ServerWatch.ServerLeft) {
      return "The tool's server '" + server + "' is gone: the cluster node running it left while the call was running"
        + " (after " + elapsedMs + " ms); the call may or may not have taken effect — check before retrying a call that"
        + " changes something.";
    }
    if (!(err instanceof ReplyException re)) {
      return "The tool call failed: " + err.getMessage();
    }
    if (re.failureType() == ReplyFailure.NO_HANDLERS) {
      return "The tool was not run: its server '" + server + "' is not running.";
    }
    if (re.failureType() == ReplyFailure.TIMEOUT) {
      return unknownOutcome(elapsedMs);
    }
    String message = re.getMessage() == null ? "" : re.getMessage();
    if (message.startsWith(McpServerVerticle.NOT_STARTED)) {
      String why = message.substring(McpServerVerticle.NOT_STARTED.length());
      String retry = re.failureCode() == FailureCodes.QUEUE_FULL ? " Try again later." : "";
      return "The tool was not run (" + why + "). Nothing was executed." + retry;
    }
    String detail = message.isEmpty() ? "" : " (" + message + ")";
    return switch (re.failureCode()) {
      case FailureCodes.TIMEOUT -> unknownOutcome(elapsedMs);
      case FailureCodes.UNAVAILABLE -> "The tool's server '" + server + "' failed while the call was running" + detail
        + "; the call may or may not have taken effect — check before retrying a call that changes something.";
      case FailureCodes.QUEUE_FULL -> "The tool was not run: server '" + server + "' is busy (too many calls are queued). Try again later.";
      case FailureCodes.RPC_ERROR -> "The tool's server returned an error" + detail + ".";
      case FailureCodes.FORBIDDEN -> "This tool is disabled by configuration.";
      case FailureCodes.BAD_REQUEST -> "The tool call was rejected" + detail + ".";
      default -> "The tool call failed" + detail + ".";
    };
  }

  private static String unknownOutcome(long elapsedMs) {
    return "The tool call timed out after " + elapsedMs + " ms; the server may still complete it — check before "
      + "retrying a call that changes something.";
  }
}
