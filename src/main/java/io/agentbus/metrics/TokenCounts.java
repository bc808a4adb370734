package io.agentbus.metrics;

/** The token counts of one model call, as {@code agentbus_model_tokens_total} records them. */
public interface TokenCounts {

  /** @return uncached input tokens */
  long inputTokens();

  /** @return output tokens */
  long outputTokens();

  /** @return input tokens written to the prompt cache */
  long cacheCreationInputTokens();

  /** @return input tokens read from the prompt cache */
  long cacheReadInputTokens();
}
