package io.agentbus.dispatch;

import io.agentbus.options.OptionsJson;
import io.vertx.core.json.JsonObject;

/**
 * Settings of the {@link DispatcherVerticle}. A plain data object: JSON constructor with
 * defaults, {@link #toJson()}, fluent validating setters.
 */
public class DispatcherOptions {

  /** No per-call timeout of its own: each server's configured {@code timeoutMs} applies. */
  public static final Long DEFAULT_TIMEOUT_MS = null;
  /**
   * The bus waits this much longer than a call's budget, so the inner layers (the server
   * verticle, the MCP request) always fail first and report why.
   */
  public static final long DEFAULT_SEND_TIMEOUT_MARGIN_MS = 5_000;
  /**
   * Bus timeout of a call whose request carries no {@code budgetMs}: the call's budget is then
   * this minus the margin (655 s, above the default {@code maxTotalTimeoutMs} of 600 s).
   */
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
    // each read checks the type and the range of the setter: a wrong value throws, naming the field
    Long timeout = OptionsJson.integer(json, "timeoutMs", 1, Long.MAX_VALUE);
    if (timeout != null) {
      setTimeoutMs(timeout);
    }
    setSendTimeoutMarginMs(OptionsJson.longField(json, "sendTimeoutMarginMs", 0, DEFAULT_SEND_TIMEOUT_MARGIN_MS));
    setFallbackSendTimeoutMs(OptionsJson.longField(json, "fallbackSendTimeoutMs", 2, DEFAULT_FALLBACK_SEND_TIMEOUT_MS));
    setMaxResultChars(OptionsJson.intField(json, "maxResultChars", 200, Integer.MAX_VALUE, DEFAULT_MAX_RESULT_CHARS));
    setMaxImageBytes(OptionsJson.intField(json, "maxImageBytes", 0, Integer.MAX_VALUE, DEFAULT_MAX_IMAGE_BYTES));
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

  /** @return how much longer the bus waits than a call's budget */
  public long getSendTimeoutMarginMs() {
    return sendTimeoutMarginMs;
  }

  /** Sets how much longer the bus waits than a call's budget. */
  public DispatcherOptions setSendTimeoutMarginMs(long ms) {
    this.sendTimeoutMarginMs = require(ms, 0, "sendTimeoutMarginMs");
    return this;
  }

  /** @return the bus timeout of a call without {@code budgetMs} (its budget is this minus the margin) */
  public long getFallbackSendTimeoutMs() {
    return fallbackSendTimeoutMs;
  }

  /** Sets the bus timeout of a call without {@code budgetMs} (its budget is this minus the margin). */
  public DispatcherOptions setFallbackSendTimeoutMs(long ms) {
    this.fallbackSendTimeoutMs = require(ms, 2, "fallbackSendTimeoutMs");
    return this;
  }

  /** @return the budget of a call whose request carries none: the fallback bus timeout minus the margin */
  public long defaultBudgetMs() {
    return Math.max(1, fallbackSendTimeoutMs - sendTimeoutMarginMs);
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

