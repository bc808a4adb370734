package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryPolicyTest {

  private static JsonObject user(String text) {
    return new JsonObject().put("role", "user").put("content", text);
  }

  private static JsonObject assistantToolUse(String id) {
    return new JsonObject().put("role", "assistant").put("content", new JsonArray()
      .add(new JsonObject().put("type", "tool_use").put("id", id).put("name", "t").put("input", new JsonObject())));
  }

  private static JsonObject toolResult(String id, String text) {
    return new JsonObject().put("role", "user").put("content", new JsonArray()
      .add(new JsonObject().put("type", "tool_result").put("tool_use_id", id)
        .put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", text)))));
  }

  private static JsonObject assistant(String text) {
    return new JsonObject().put("role", "assistant").put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", text)));
  }

  /** Three turns; the first two use a tool with a long result. */
  private static List<JsonObject> history() {
    List<JsonObject> h = new ArrayList<>();
    for (int turn = 0; turn < 3; turn++) {
      h.add(user("question " + turn));
      h.add(assistantToolUse("t" + turn));
      h.add(toolResult("t" + turn, "x".repeat(100)));
      h.add(assistant("answer " + turn));
    }
    return h;
  }

  @Test
  void keepAllSendsTheHistoryAsIs() {
    List<JsonObject> h = history();
    JsonArray out = HistoryPolicy.KEEP_ALL.apply(h);
    assertEquals(12, out.size());
    assertSame(h.get(2), out.getValue(2));
  }

  @Test
  void lastTurnsCutsOnlyAtTurnStarts() {
    JsonArray out = new HistoryPolicy(2, 0).apply(history());
    assertEquals(8, out.size());
    assertEquals("question 1", out.getJsonObject(0).getString("content"));
    assertEquals("tool_use", out.getJsonObject(1).getJsonArray("content").getJsonObject(0).getString("type"));
    assertEquals("t1", out.getJsonObject(2).getJsonArray("content").getJsonObject(0).getString("tool_use_id"));
  }

  @Test
  void oldToolResultsAreShortenedButTheCurrentTurnIsNot() {
    List<JsonObject> h = history();
    JsonArray out = new HistoryPolicy(0, 10).apply(h);
    String old = out.getJsonObject(2).getJsonArray("content").getJsonObject(0).getJsonArray("content").getJsonObject(0).getString("text");
    assertTrue(old.startsWith("xxxxxxxxxx [... 90 characters"), old);
    String current = out.getJsonObject(10).getJsonArray("content").getJsonObject(0).getJsonArray("content").getJsonObject(0).getString("text");
    assertEquals(100, current.length());
    assertEquals(100, h.get(2).getJsonArray("content").getJsonObject(0).getJsonArray("content").getJsonObject(0).getString("text").length(),
      "the stored history is never changed");
  }
}
