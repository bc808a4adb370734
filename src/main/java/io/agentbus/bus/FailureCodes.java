package io.agentbus.bus;

/**
 * {@code ReplyException.failureCode()} values used on every Agentbus address. They follow
 * HTTP status meanings so the HTTP API can pass them through.
 */
public final class FailureCodes {

  /** The request body or action is malformed (missing field, wrong type). */
  public static final int BAD_REQUEST = 400;
  /** The MCP server needs OAuth authorization (for the caller's tenant) before it serves calls. */
  public static final int UNAUTHORIZED = 401;
  /** The tool is disabled by configuration ({@code allowedTools}/{@code disabledTools}). */
  public static final int FORBIDDEN = 403;
  /** Unknown action, tool, conversation or server. */
  public static final int NOT_FOUND = 404;
  /** The target is busy with something that excludes this request (a running turn). */
  public static final int CONFLICT = 409;
  /** The request would make something grow past its configured size (a conversation's history). */
  public static final int TOO_LARGE = 413;
  /** A bounded queue is full; retry later. */
  public static final int QUEUE_FULL = 429;
  /** An unexpected internal failure. */
  public static final int INTERNAL = 500;
  /** The MCP server answered with a JSON-RPC error (message carries its code and text). */
  public static final int RPC_ERROR = 502;
  /** An upstream API failed for good (the model API, after its retries); same code as RPC_ERROR. */
  public static final int UPSTREAM = 502;
  /** The MCP server is not ready: starting, restarting, down, or it exited mid-call. */
  public static final int UNAVAILABLE = 503;
  /** The request timed out (and was cancelled at the server). */
  public static final int TIMEOUT = 504;

  private FailureCodes() {
  }
}
