package io.agentbus.dispatch;

import io.vertx.core.json.JsonObject;

/**
 * Settings of the {@link DispatcherVerticle}. A plain data object: JSON constructor with
 * defaults, {@link #toJson()}, fluent validating setters.
 */
public class DispatcherOptions {

  /** No per-call timeout of its own: each server's configured {@code timeoutMs} applies. */
  public static final Long DEFAULT_TIMEOUT_MS = null;
  /** The bus waits this much longer than the MCP timeout, so the inner layer fails first. */
  public static final long DEFAULT_SEND_TIMEOUT_MARGIN_MS = 5_000;
  /** Bus timeout when no call timeout is known (above the default {@code maxTotalTimeoutMs}). */
  public static final long DEFAULT_FALLBACK_SEND_TIMEOUT_MS = 660_000;
  /** Text characters kept per tool result; beyond that head and tail are kept. */
  public static final int DEFAULT_MAX_RESULT_CHARS = 100_000;
  /** Largest image (decoded bytes) passed on as an image block; Anthropic's limit is 5 MB. */
  public static final int DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

  private Long timeoutMs = DEFAULT_TIMEOUT_MS;
  private long sendTimeoutMarginMs = DEFAULT_SEND_TIMEOUT_MARGIN_MS;
  private long fallbackSendTimeoutMs = DEFAULT_FALLBACK_SEND_TIMEOUT_MS;
  private int maxResultChars = DEFAULT_MAX_RESULT_CHARS;
  private int maxImageBytes = DEFAULT_MAX_IMAGE_BYTES;

  public DispatcherOptions() {
  }

  public DispatcherOptions(DispatcherOptions other) {
    this(other.toJson());
  }

  /** Reads {@code {timeoutMs?, sendTimeoutMarginMs?, fallbackSendTimeoutMs?, maxResultChars?, maxImageBytes?}}. */
  public DispatcherOptions(JsonObject json) {
    if (json.getValue("timeoutMs") instanceof Number n) {
      setTimeoutMs(n.longValue());
    }
    setSendTimeoutMarginMs(json.getLong("sendTimeoutMarginMs", DEFAULT_SEND_TIMEOUT_MARGIN_MS));
    setFallbackSendTimeoutMs(json.getLong("fallbackSendTimeoutMs", DEFAULT_FALLBACK_SEND_TIMEOUT_MS));
    setMaxResultChars(json.getInteger("maxResultChars", DEFAULT_MAX_RESULT_CHARS));
    setMaxImageBytes(json.getInteger("maxImageBytes", DEFAULT_MAX_IMAGE_BYTES));
  }

  /** @return the JSON form read by {@link #DispatcherOptions(JsonObject)} */
  public JsonObject toJson() {
    JsonObject json = new JsonObject()
      .put("sendTimeoutMarginMs", sendTimeoutMarginMs)
      .put("fallbackSendTimeoutMs", fallbackSendTimeoutMs)
      .put("maxResultChars", maxResultChars)
      .put("maxImageBytes", maxImageBytes);
    if (timeoutMs != null) {
      json.put("timeoutMs", timeoutMs);
    }
    return json;
  }

  /** @return the MCP timeout of each call, or {@code null} for the server's own */
  public Long getTimeoutMs() {
    return timeoutMs;
  }

  /** Sets the MCP timeout passed with each call (a request's {@code timeoutMs} wins). */
  public DispatcherOptions setTimeoutMs(long timeoutMs) {
    this.timeoutMs = require(timeoutMs, 1, "timeoutMs");
    return this;
  }

  /** @return how much longer the bus waits than the MCP timeout */
  public long getSendTimeoutMarginMs() {
    return sendTimeoutMarginMs;
  }

  /** Sets how much longer the bus waits than the MCP timeout. */
  public DispatcherOptions setSendTimeoutMarginMs(long ms) {
    this.sendTimeoutMarginMs = require(ms, 0, "sendTimeoutMarginMs");
    return this;
  }

  /** @return the bus timeout used when no call timeout is known */
  public long getFallbackSendTimeoutMs() {
    return fallbackSendTimeoutMs;
  }

  /** Sets the bus timeout used when no call timeout is known. */
  public DispatcherOptions setFallbackSendTimeoutMs(long ms) {
    this.fallbackSendTimeoutMs = require(ms, 1, "fallbackSendTimeoutMs");
    return this;
  }

  /** @return the text characters kept per tool result */
  public int getMaxResultChars() {
    return maxResultChars;
  }

  /** Sets the text characters kept per tool result (at least 200). */
  public DispatcherOptions setMaxResultChars(int maxResultChars) {
    this.maxResultChars = (int) require(maxResultChars, 200, "maxResultChars");
    return this;
  }

  /** @return the largest image passed on as an image, in decoded bytes */
  public int getMaxImageBytes() {
    return maxImageBytes;
  }

  /** Sets the largest image passed on as an image, in decoded bytes. */
  public DispatcherOptions setMaxImageBytes(int maxImageBytes) {
    this.maxImageBytes = (int) require(maxImageBytes, 0, "maxImageBytes");
    return this;
  }

  private static long require(long value, long min, String field) {
    if (value < min) {
      throw new IllegalArgumentException(field + " must be >= " + min);
    }
    return value;
  }
}
