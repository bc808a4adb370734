package io.agentbus.mcp;

import io.vertx.core.Handler;

/**
 * Per-call settings for {@link McpClient#callTool}. Unset values fall back to the
 * server's options. The call fails with a timeout when no response and no progress arrived
 * for {@code timeoutMs}; each {@code notifications/progress} restarts that clock, but never
 * past {@code maxTotalTimeoutMs} after the request was sent.
 */
public class CallOptions {

  private Long timeoutMs;
  private Long maxTotalTimeoutMs;
  private boolean resetTimeoutOnProgress = true;
  private Handler<ProgressUpdate> progressHandler;
  private Object caller;

  public CallOptions() {
  }

  public CallOptions(CallOptions other) {
    this.timeoutMs = other.timeoutMs;
    this.maxTotalTimeoutMs = other.maxTotalTimeoutMs;
    this.resetTimeoutOnProgress = other.resetTimeoutOnProgress;
    this.progressHandler = other.progressHandler;
    this.caller = other.caller;
  }

  /** @return the idle timeout in ms, or {@code null} for the server default */
  public Long getTimeoutMs() {
    return timeoutMs;
  }

  /** Sets the timeout in ms; with progress it is the time allowed between updates. */
  public CallOptions setTimeoutMs(long timeoutMs) {
    if (timeoutMs < 1) {
      throw new IllegalArgumentException("timeoutMs must be >= 1");
    }
    this.timeoutMs = timeoutMs;
    return this;
  }

  /** @return the hard maximum in ms even when progress keeps arriving, or {@code null} */
  public Long getMaxTotalTimeoutMs() {
    return maxTotalTimeoutMs;
  }

  /** Sets the hard maximum duration of the call, whatever progress arrives. */
  public CallOptions setMaxTotalTimeoutMs(long maxTotalTimeoutMs) {
    if (maxTotalTimeoutMs < 1) {
      throw new IllegalArgumentException("maxTotalTimeoutMs must be >= 1");
    }
    this.maxTotalTimeoutMs = maxTotalTimeoutMs;
    return this;
  }

  /** @return whether a progress update restarts the timeout clock (default true) */
  public boolean isResetTimeoutOnProgress() {
    return resetTimeoutOnProgress;
  }

  /** Sets whether a progress update restarts the timeout clock. */
  public CallOptions setResetTimeoutOnProgress(boolean reset) {
    this.resetTimeoutOnProgress = reset;
    return this;
  }

  /** @return the progress handler, or {@code null} when no progress was asked for */
  public Handler<ProgressUpdate> getProgressHandler() {
    return progressHandler;
  }

  /**
   * Receives each progress update on the client's context. Every {@code tools/call} carries a
   * {@code _meta.progressToken} whether or not a handler is set, so that progress restarts the
   * timeout (see {@link #setResetTimeoutOnProgress}) in any case.
   */
  public CallOptions setProgressHandler(Handler<ProgressUpdate> progressHandler) {
    this.progressHandler = progressHandler;
    return this;
  }

  /** @return the tag that names who made this call (see {@link ServerRequest#caller()}), or {@code null} */
  public Object getCaller() {
    return caller;
  }

  /**
   * Tags the call with who made it: a request the server sends in the course of this call
   * (an elicitation, a sampling request) carries it in {@link ServerRequest#caller()}.
   */
  public CallOptions setCaller(Object caller) {
    this.caller = caller;
    return this;
  }
}
