package io.agentbus.conversation;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Chooses which part of a conversation's history is sent to the model. The stored history
 * is never changed. Cuts only happen at turn starts (a user message that is not a
 * tool_result message), so a tool_use is never separated from its tool_result and the
 * sequence stays valid.
 *
 * @param lastTurns keep only the last N turns ({@code 0}: keep all)
 * @param toolResultMaxChars shorten tool_result text of earlier turns beyond this many
 *     characters ({@code 0}: never)
 */
public record HistoryPolicy(int lastTurns, int toolResultMaxChars) {

  /** Keep everything (the default). */
  public static final HistoryPolicy KEEP_ALL = new HistoryPolicy(0, 0);

  public HistoryPolicy {
    if (lastTurns < 0 || toolResultMaxChars < 0) {
      throw new IllegalArgumentException("history policy values must be >= 0");
    }
  }

  /** Reads {@code {lastTurns?, toolResultMaxChars?}}. */
  public static HistoryPolicy fromJson(JsonObject json) {
    if (json == null) {
      return KEEP_ALL;
    }
    return new HistoryPolicy(json.getInteger("lastTurns", 0), json.getInteger("toolResultMaxChars", 0));
  }

  public JsonObject toJson() {
    return new JsonObject().put("lastTurns", lastTurns).put("toolResultMaxChars", toolResultMaxChars);
  }

  /** @return the messages to send for this history */
  public JsonArray apply(List<JsonObject> history) {
    List<Integer> starts = turnStarts(history);
    int from = 0;
    if (lastTurns > 0 && starts.size() > lastTurns) {
      from = starts.get(starts.size() - lastTurns);
    }
    int currentTurn = starts.isEmpty() ? 0 : starts.get(starts.size() - 1);
    JsonArray out = new JsonArray(new ArrayList<>(history.size() - from));
    for (int i = from; i < history.size(); i++) {
      JsonObject m = history.get(i);
      out.add(toolResultMaxChars > 0 && i < currentTurn ? shorten(m) : m);
    }
    return out;
  }

  /** @return indexes of the user messages that start a turn */
  static List<Integer> turnStarts(List<JsonObject> history) {
    List<Integer> starts = new ArrayList<>();
    for (int i = 0; i < history.size(); i++) {
      JsonObject m = history.get(i);
      if ("user".equals(m.getString("role")) && !isToolResultMessage(m)) {
        starts.add(i);
      }
    }
    return starts;
  }

  static boolean isToolResultMessage(JsonObject message) {
    if (!(message.getValue("content") instanceof JsonArray content) || content.isEmpty()) {
      return false;
    }
    return content.getValue(0) instanceof JsonObject b && "tool_result".equals(b.getString("type"));
  }

  private JsonObject shorten(JsonObject message) {
    if (!isToolResultMessage(message)) {
      return message;
    }
    JsonArray blocks = new JsonArray();
    for (Object o : message.getJsonArray("content")) {
      JsonObject block = (JsonObject) o;
      if ("tool_result".equals(block.getString("type")) && block.getValue("content") instanceof JsonArray inner) {
        JsonArray shortened = new JsonArray();
        for (Object c : inner) {
          shortened.add(c instanceof JsonObject cb ? shortenBlock(cb) : c);
        }
        block = block.copy().put("content", shortened);
      } else if ("tool_result".equals(block.getString("type")) && block.getValue("content") instanceof String s
        && s.length() > toolResultMaxChars) {
        block = block.copy().put("content", cut(s));
      }
      blocks.add(block);
    }
    return message.copy().put("content", blocks);
  }

  private Object shortenBlock(JsonObject block) {
    if ("text".equals(block.getString("type")) && block.getString("text", "").length() > toolResultMaxChars) {
      return block.copy().put("text", cut(block.getString("text")));
    }
    if ("image".equals(block.getString("type"))) {
      return new JsonObject().put("type", "text").put("text", "[image omitted from earlier turn]");
    }
    return block;
  }

  private String cut(String s) {
    return s.substring(0, toolResultMaxChars) + " [... " + (s.length() - toolResultMaxChars)
      + " characters of an earlier tool result omitted]";
  }
}
