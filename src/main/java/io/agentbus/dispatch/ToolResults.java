package io.agentbus.dispatch;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Builds canonical (Anthropic-shaped) {@code tool_result} blocks. */
public final class ToolResults {

  private ToolResults() {
  }

  /** @return {@code {type:"tool_result", tool_use_id, content, is_error}} */
  public static JsonObject result(String toolUseId, JsonArray content, boolean isError) {
    return new JsonObject().put("type", "tool_result").put("tool_use_id", toolUseId)
      .put("content", content).put("is_error", isError);
  }

  /** @return an {@code is_error} result with one text block */
  public static JsonObject error(String toolUseId, String reason) {
    return result(toolUseId, new JsonArray().add(ResultAdapter.text(reason)), true);
  }
}
