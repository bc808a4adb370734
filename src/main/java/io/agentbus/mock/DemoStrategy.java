package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The offline demo: picks the tool whose name or description shares the most words with the
 * user's message, fills its required arguments from the message (a place argument gets the
 * capitalised word, or the last word), and after the tool results summarises them. With nothing
 * to match it answers directly.
 */
final class DemoStrategy implements ReplyStrategy {

  private static final Set<String> STOP_WORDS = Set.of("the", "and", "for", "what", "whats", "with", "from",
      "this", "that", "are", "you", "can", "please", "tell", "about", "how", "is", "in", "of", "to", "me", "a");

  @Override
  public MockReply reply(MockConversation conversation) {
    JsonArray results = conversation.lastToolResults();
    if (!results.isEmpty()) {
      StringBuilder sb = new StringBuilder("Here is what I found:");
      for (Object o : results) {
        JsonObject r = (JsonObject) o;
        sb.append("\n- ").append(r.getBoolean("is_error", false) ? "(tool failed) " : "")
            .append(MockConversation.resultText(r));
      }
      return MockReply.text(sb.toString());
    }
    String text = conversation.lastUserText();
    Set<String> words = words(text);
    String arithmetic = SchemaValues.arithmeticIn(text);
    if (arithmetic != null && arithmetic.matches(".*\\d.*[-+*/%^].*\\d.*")) {
      words.addAll(Set.of("calculate", "calculator", "arithmetic", "expression", "evaluate"));
    }
    JsonObject best = null;
    int bestScore = 0;
    for (Object o : conversation.tools()) {
      JsonObject tool = (JsonObject) o;
      Set<String> toolWords = words(tool.getString("name", "").replace('_', ' ').replace('-', ' ')
          + " " + tool.getString("description", ""));
      int score = 0;
      for (String w : words) {
        if (toolWords.contains(w)) {
          score++;
        }
      }
      if (score > bestScore) {
        best = tool;
        bestScore = score;
      }
    }
    if (best == null) {
      return MockReply.text(text.isBlank() ? "Hello! How can I help?" : "You said: " + text);
    }
    JsonArray content = new JsonArray()
        .add(new JsonObject().put("type", "text").put("text", "Let me use " + best.getString("name") + "."))
        .add(new JsonObject().put("type", "tool_use").put("name", best.getString("name"))
            .put("input", SchemaValues.inputFor(best.getJsonObject("input_schema"), text)));
    return new MockReply(content, "tool_use", null);
  }

  private static Set<String> words(String text) {
    Set<String> out = new HashSet<>();
    for (String w : text.toLowerCase(Locale.ROOT).split("[^a-z0-9]+")) {
      if (w.length() >= 3 && !STOP_WORDS.contains(w)) {
        out.add(w);
        if (w.endsWith("s") && w.length() > 3) {
          out.add(w.substring(0, w.length() - 1));
        }
      }
    }
    return out;
  }

  /** The first capitalised word that is not the first word of the text, else the last word. */
  static String placeIn(String text) {
    String[] tokens = text.trim().split("[^\\p{L}0-9'-]+");
    for (int i = 1; i < tokens.length; i++) {
      if (!tokens[i].isEmpty() && Character.isUpperCase(tokens[i].charAt(0))) {
        return tokens[i];
      }
    }
    return lastWord(text);
  }

  /** The last word of the text, without punctuation. */
  static String lastWord(String text) {
    String[] tokens = text.trim().split("[^\\p{L}0-9'-]+");
    for (int i = tokens.length - 1; i >= 0; i--) {
      if (!tokens[i].isEmpty()) {
        return tokens[i];
      }
    }
    return text.trim();
  }
}
