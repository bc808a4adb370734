package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A validated request as the reply strategies see it, in the canonical (Anthropic) shape whatever
 * endpoint it came through.
 *
 * @param system the system prompt, may be empty
 * @param messages canonical messages ({@code content} always an array of blocks)
 * @param tools canonical tool definitions {@code {name, description, input_schema}}
 */
public record MockConversation(String system, JsonArray messages, JsonArray tools) {

  /**
   * @param body a validated Anthropic request body
   * @return the conversation
   */
  public static MockConversation fromAnthropic(JsonObject body) {
    Object sys = body.getValue("system");
    String system = sys instanceof String s ? s : sys instanceof JsonArray a ? textOf(a) : "";
    JsonArray messages = new JsonArray();
    for (Object o : body.getJsonArray("messages")) {
      JsonObject m = (JsonObject) o;
      messages.add(new JsonObject().put("role", m.getString("role")).put("content", blocks(m.getValue("content"))));
    }
    return new MockConversation(system, messages, body.getJsonArray("tools", new JsonArray()));
  }

  /**
   * @param body a validated Chat Completions request body
   * @return the conversation: system/developer messages become the system prompt, tool_calls
   *     become tool_use blocks, consecutive tool messages become one user message of tool_result
   *     blocks ({@code is_error} when the text starts with {@code "Error: "})
   */
  public static MockConversation fromOpenAi(JsonObject body) {
    StringBuilder system = new StringBuilder();
    JsonArray messages = new JsonArray();
    JsonArray pendingResults = null;
    for (Object o : body.getJsonArray("messages")) {
      JsonObject m = (JsonObject) o;
      String role = m.getString("role");
      if ("tool".equals(role)) {
        if (pendingResults == null) {
          pendingResults = new JsonArray();
          messages.add(new JsonObject().put("role", "user").put("content", pendingResults));
        }
        String text = contentText(m.getValue("content"));
        JsonObject result = new JsonObject().put("type", "tool_result").put("tool_use_id", m.getString("tool_call_id"))
            .put("content", text);
        if (text.startsWith("Error: ")) {
          result.put("is_error", true);
        }
        pendingResults.add(result);
        continue;
      }
      pendingResults = null;
      switch (role) {
        case "system", "developer" -> system.append(system.length() > 0 ? "\n" : "").append(contentText(m.getValue("content")));
        case "assistant" -> {
          JsonArray content = new JsonArray();
          String text = contentText(m.getValue("content"));
          if (!text.isEmpty()) {
            content.add(new JsonObject().put("type", "text").put("text", text));
          }
          for (Object c : m.getJsonArray("tool_calls", new JsonArray())) {
            JsonObject call = (JsonObject) c;
            JsonObject fn = call.getJsonObject("function", new JsonObject());
            JsonObject input;
            try {
              input = new JsonObject(fn.getString("arguments", "{}"));
            } catch (RuntimeException e) {
              input = new JsonObject();
            }
            content.add(new JsonObject().put("type", "tool_use").put("id", call.getString("id"))
                .put("name", fn.getString("name")).put("input", input));
          }
          messages.add(new JsonObject().put("role", "assistant").put("content", content));
        }
        default -> messages.add(new JsonObject().put("role", "user")
            .put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", contentText(m.getValue("content"))))));
      }
    }
    JsonArray tools = new JsonArray();
    for (Object o : body.getJsonArray("tools", new JsonArray())) {
      JsonObject fn = ((JsonObject) o).getJsonObject("function", new JsonObject());
      tools.add(new JsonObject().put("name", fn.getString("name")).put("description", fn.getString("description", ""))
          .put("input_schema", fn.getJsonObject("parameters", new JsonObject().put("type", "object"))));
    }
    return new MockConversation(system.toString(), messages, tools);
  }

  private static JsonArray blocks(Object content) {
    if (content instanceof JsonArray a) {
      return a;
    }
    return new JsonArray().add(new JsonObject().put("type", "text").put("text", String.valueOf(content)));
  }

  private static String contentText(Object content) {
    if (content == null) {
      return "";
    }
    if (content instanceof JsonArray a) {
      return textOf(a);
    }
    return content.toString();
  }

  private static String textOf(JsonArray blocks) {
    StringBuilder sb = new StringBuilder();
    for (Object o : blocks) {
      if (o instanceof JsonObject b && b.getString("text") != null) {
        sb.append(sb.length() > 0 ? "\n" : "").append(b.getString("text"));
      }
    }
    return sb.toString();
  }

  /**
   * @return the text of the first user message (used to pick a scripted conversation)
   */
  public String firstUserText() {
    for (Object o : messages) {
      JsonObject m = (JsonObject) o;
      if ("user".equals(m.getString("role"))) {
        return textOf(m.getJsonArray("content"));
      }
    }
    return "";
  }

  /**
   * @return the last message, or an empty object
   */
  public JsonObject lastMessage() {
    return messages.isEmpty() ? new JsonObject() : messages.getJsonObject(messages.size() - 1);
  }

  /**
   * @return the tool_result blocks of the last message if it is a user message
   */
  public JsonArray lastToolResults() {
    JsonArray out = new JsonArray();
    JsonObject last = lastMessage();
    if ("user".equals(last.getString("role"))) {
      for (Object o : last.getJsonArray("content", new JsonArray())) {
        JsonObject b = (JsonObject) o;
        if ("tool_result".equals(b.getString("type"))) {
          out.add(b);
        }
      }
    }
    return out;
  }

  /**
   * @return the text blocks of the last user message, joined
   */
  public String lastUserText() {
    for (int i = messages.size() - 1; i >= 0; i--) {
      JsonObject m = messages.getJsonObject(i);
      if ("user".equals(m.getString("role"))) {
        String t = textOf(m.getJsonArray("content"));
        if (!t.isEmpty()) {
          return t;
        }
      }
    }
    return "";
  }

  /**
   * @return number of assistant messages in the history
   */
  public int assistantTurns() {
    int n = 0;
    for (Object o : messages) {
      if ("assistant".equals(((JsonObject) o).getString("role"))) {
        n++;
      }
    }
    return n;
  }

  /**
   * Text of a tool_result's content.
   *
   * @param result a tool_result block
   * @return its text
   */
  public static String resultText(JsonObject result) {
    Object c = result.getValue("content");
    return c instanceof JsonArray a ? textOf(a) : c == null ? "" : c.toString();
  }
}
