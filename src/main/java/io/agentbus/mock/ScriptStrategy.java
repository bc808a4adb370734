package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Plays scripted replies: reply {@code i} answers a history with {@code i} assistant messages, in
 * the conversation whose {@code match} text occurs in the first user message (see {@link
 * MockModelOptions#setScript}). Past the end of the script it answers a plain end_turn.
 */
final class ScriptStrategy implements ReplyStrategy {

  private final JsonObject script;

  ScriptStrategy(JsonObject script) {
    this.script = script;
  }

  @Override
  public MockReply reply(MockConversation conversation) {
    JsonArray replies = replies(conversation.firstUserText());
    int turn = conversation.assistantTurns();
    if (replies == null || turn >= replies.size()) {
      return MockReply.text("(the mock script has no reply for turn " + turn + ")");
    }
    return MockReply.fromJson(replies.getJsonObject(turn));
  }

  private JsonArray replies(String firstUserText) {
    JsonArray conversations = script.getJsonArray("conversations");
    if (conversations == null) {
      return script.getJsonArray("replies");
    }
    JsonArray fallback = null;
    for (Object o : conversations) {
      JsonObject c = (JsonObject) o;
      String match = c.getString("match");
      if (match == null) {
        fallback = fallback == null ? c.getJsonArray("replies") : fallback;
      } else if (firstUserText.contains(match)) {
        return c.getJsonArray("replies");
      }
    }
    return fallback;
  }
}
