package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Load-test rules: when the last user message holds no tool results, call up to K of the offered
 * tools in parallel (inputs from their schemas); otherwise end the turn with a summary.
 */
final class RulesStrategy implements ReplyStrategy {

  private final int maxParallel;

  RulesStrategy(int maxParallel) {
    this.maxParallel = maxParallel;
  }

  @Override
  public MockReply reply(MockConversation conversation) {
    JsonArray results = conversation.lastToolResults();
    if (!results.isEmpty()) {
      StringBuilder sb = new StringBuilder("Received ").append(results.size()).append(" tool result(s)");
      int errors = 0;
      for (Object o : results) {
        if (((JsonObject) o).getBoolean("is_error", false)) {
          errors++;
        }
      }
      if (errors > 0) {
        sb.append(", ").append(errors).append(" failed");
      }
      return MockReply.text(sb.append('.').toString());
    }
    JsonArray tools = conversation.tools();
    if (tools.isEmpty()) {
      return MockReply.text("No tools offered; answering directly: " + conversation.lastUserText());
    }
    JsonArray content = new JsonArray();
    for (int i = 0; i < Math.min(maxParallel, tools.size()); i++) {
      JsonObject tool = tools.getJsonObject(i);
      content.add(new JsonObject().put("type", "tool_use").put("name", tool.getString("name"))
          .put("input", SchemaValues.inputFor(tool.getJsonObject("input_schema"), null)));
    }
    return new MockReply(content, "tool_use", null);
  }
}
