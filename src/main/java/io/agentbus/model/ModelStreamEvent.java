package io.agentbus.model;

import io.vertx.core.json.JsonObject;

/**
 * An incremental event of a streamed model reply, delivered to the handler given to {@link
 * ModelClient#stream}. Block indexes follow the order of {@link ModelResponse#content()}.
 */
public sealed interface ModelStreamEvent {

  /**
   * The reply started.
   *
   * @param id the message id
   * @param model the model
   */
  record MessageStarted(String id, String model) implements ModelStreamEvent {
  }

  /**
   * A piece of text for the text block at {@code index}.
   *
   * @param index block index
   * @param text the new text
   */
  record TextDelta(int index, String text) implements ModelStreamEvent {
  }

  /**
   * A piece of extended thinking for the thinking block at {@code index}.
   *
   * @param index block index
   * @param thinking the new thinking text
   */
  record ThinkingDelta(int index, String thinking) implements ModelStreamEvent {
  }

  /**
   * The model started a tool call (its input follows as {@link ToolInputDelta}s).
   *
   * @param index block index
   * @param id the tool_use id
   * @param name the tool name
   */
  record ToolUseStarted(int index, String id, String name) implements ModelStreamEvent {
  }

  /**
   * A fragment of a tool call's JSON input (not valid JSON on its own).
   *
   * @param index block index
   * @param partialJson the fragment
   */
  record ToolInputDelta(int index, String partialJson) implements ModelStreamEvent {
  }

  /**
   * A content block is complete.
   *
   * @param index block index
   * @param block the complete canonical block (for tool_use: with the parsed input)
   */
  record BlockCompleted(int index, JsonObject block) implements ModelStreamEvent {
  }

  /**
   * Usage so far (cumulative, not a delta).
   *
   * @param usage the usage
   */
  record UsageUpdated(Usage usage) implements ModelStreamEvent {
  }

  /**
   * The stop reason is known.
   *
   * @param stopReason the stop reason (canonical, unknown values passed through)
   * @param stopSequence the stop sequence hit, or null
   */
  record Stopped(String stopReason, String stopSequence) implements ModelStreamEvent {
  }
}
