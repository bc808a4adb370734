package io.agentbus.model;

import io.agentbus.metrics.TokenCounts;
import io.vertx.core.json.JsonObject;

/**
 * Token usage of one model call, in Anthropic terms (OpenAI's prompt/completion tokens map to
 * input/output; its cached prompt tokens to {@code cacheReadInputTokens}).
 *
 * @param inputTokens uncached input tokens
 * @param outputTokens output tokens
 * @param cacheCreationInputTokens input tokens written to the prompt cache
 * @param cacheReadInputTokens input tokens read from the prompt cache
 */
public record Usage(long inputTokens, long outputTokens, long cacheCreationInputTokens, long cacheReadInputTokens)
    implements TokenCounts {

  /** No usage at all. */
  public static final Usage ZERO = new Usage(0, 0, 0, 0);

  /**
   * @param other usage to add
   * @return the field-wise sum
   */
  public Usage plus(Usage other) {
    if (other == null) {
      return this;
    }
    return new Usage(inputTokens + other.inputTokens, outputTokens + other.outputTokens,
        cacheCreationInputTokens + other.cacheCreationInputTokens, cacheReadInputTokens + other.cacheReadInputTokens);
  }

  /**
   * @return total input tokens: uncached plus cache writes plus cache reads
   */
  public long totalInputTokens() {
    return inputTokens + cacheCreationInputTokens + cacheReadInputTokens;
  }

  /**
   * Reads an Anthropic {@code usage} object; missing or null fields count as 0.
   *
   * @param json the usage object, may be {@code null}
   * @return the usage
   */
  public static Usage fromJson(JsonObject json) {
    if (json == null) {
      return ZERO;
    }
    return new Usage(num(json, "input_tokens"), num(json, "output_tokens"),
        num(json, "cache_creation_input_tokens"), num(json, "cache_read_input_tokens"));
  }

  /**
   * Overlays the fields present in an Anthropic usage object (as in a streaming
   * {@code message_delta}, whose counts are cumulative) on this usage.
   *
   * @param json the usage object, may be {@code null}
   * @return the merged usage
   */
  public Usage overlay(JsonObject json) {
    if (json == null) {
      return this;
    }
    return new Usage(
        pick(json, "input_tokens", inputTokens), pick(json, "output_tokens", outputTokens),
        pick(json, "cache_creation_input_tokens", cacheCreationInputTokens),
        pick(json, "cache_read_input_tokens", cacheReadInputTokens));
  }

  /**
   * @return the Anthropic-shaped usage object
   */
  public JsonObject toJson() {
    return new JsonObject()
        .put("input_tokens", inputTokens)
        .put("output_tokens", outputTokens)
        .put("cache_creation_input_tokens", cacheCreationInputTokens)
        .put("cache_read_input_tokens", cacheReadInputTokens);
  }

  private static long num(JsonObject json, String key) {
    return pick(json, key, 0);
  }

  private static long pick(JsonObject json, String key, long fallback) {
    Object v = json.getValue(key);
    return v instanceof Number n ? n.longValue() : fallback;
  }
}
