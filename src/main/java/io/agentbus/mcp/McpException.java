package io.agentbus.mcp;

import io.agentbus.metrics.MetricsOutcome;

/**
 * A failure talking to an MCP server. {@link #kind()} says what went wrong; for
 * {@link Kind#RPC_ERROR} the server's JSON-RPC error code and data are kept.
 */
public final class McpException extends RuntimeException implements MetricsOutcome {

  /** What kind of failure this is. */
  public enum Kind {
    /** The request got no answer in time; {@code notifications/cancelled} was sent. */
    TIMEOUT,
    /** The server answered with a JSON-RPC error object. */
    RPC_ERROR,
    /** The connection ended (child exited, stream closed, client closed) while waiting. */
    CONNECTION_CLOSED,
    /** The client is not (yet, or any more) connected and ready. */
    NOT_CONNECTED,
    /** The server broke the protocol (bad result shape, pagination loop, ...). */
    PROTOCOL,
    /** The server answered {@code initialize} with a protocol version we do not speak. */
    UNSUPPORTED_VERSION,
    /** Too many requests are already waiting on this connection. */
    QUEUE_FULL,
    /** The transport failed to start or to send. */
    TRANSPORT,
    /**
     * The server needs OAuth authorization and no person can be asked now: {@link #data()}
     * is a JSON object with {@code server}, {@code tenant} and {@code authorizationUrl}.
     */
    AUTHORIZATION_REQUIRED,
    /** The OAuth flow failed (bad metadata, rejected grant, state or issuer mismatch, ...). */
    AUTHORIZATION_FAILED
  }

  private final Kind kind;
  private final Integer rpcCode;
  private final Object data;

  public McpException(Kind kind, String message) {
    this(kind, message, null, null, null);
  }

  public McpException(Kind kind, String message, Throwable cause) {
    this(kind, message, null, null, cause);
  }

  public McpException(Kind kind, String message, Integer rpcCode, Object data, Throwable cause) {
    // Expected, hot-path failures: a stack trace would only cost time.
    super(message, cause, false, false);
    this.kind = kind;
    this.rpcCode = rpcCode;
    this.data = data;
  }

  /** @return what kind of failure this is */
  public Kind kind() {
    return kind;
  }

  /** @return the kind, lower case: the {@code outcome} or {@code status} label of its metrics */
  @Override
  public String metricsOutcome() {
    return kind().name().toLowerCase();
  }


  /** @return the JSON-RPC error code for {@link Kind#RPC_ERROR}, else {@code null} */
  public Integer rpcCode() {
    return rpcCode;
  }

  /** @return the JSON-RPC error {@code data} member, if any */
  public Object data() {
    return data;
  }
}
