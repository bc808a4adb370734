package io.agentbus.model.anthropic;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import io.agentbus.model.ModelException;
import io.agentbus.model.ModelException.Kind;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.Usage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Maps canonical requests to Anthropic request bodies and Anthropic messages to replies. */
public final class AnthropicCodec {

  private AnthropicCodec() {
  }

  /**
   * @param request the canonical request
   * @param defaultModel the model used when the request names none
   * @param stream whether to stream
   * @return the {@code /v1/messages} body
   * @throws ModelException if no model is known
   */
  public static JsonObject requestBody(ModelRequest request, String defaultModel, boolean stream) {
    return requestBody(request, defaultModel, stream, false);
  }

  /**
   * As {@link #requestBody(ModelRequest, String, boolean)}; with {@code promptCaching}, cache
   * breakpoints go on the last tool (tools and system) and on the last block of the last
   * message, so each call of an agent loop reads the previous call's prefix from the cache.
   * The request's own message objects are never modified.
   */
  public static JsonObject requestBody(ModelRequest request, String defaultModel, boolean stream, boolean promptCaching) {
    JsonObject body = request.toJson();
    if (body.getString("model") == null) {
      if (defaultModel == null) {
        throw new ModelException(Kind.INVALID_REQUEST, "no model given in the request or the options", false, null);
      }
      body.put("model", defaultModel);
    }
    JsonArray tools = body.getJsonArray("tools");
    if (tools != null) {
      JsonArray out = new JsonArray();
      for (Object o : tools) {
        out.add(tool((JsonObject) o));
      }
      body.put("tools", out);
    }
    if (promptCaching) {
      addCacheBreakpoints(body);
    }
    if (stream) {
      body.put("stream", true);
    } else {
      body.remove("stream");
    }
    return body;
  }

  private static final JsonObject EPHEMERAL = new JsonObject().put("type", "ephemeral");

  private static void addCacheBreakpoints(JsonObject body) {
    JsonArray tools = body.getJsonArray("tools");
    if (tools != null && !tools.isEmpty()) {
      JsonObject last = tools.getJsonObject(tools.size() - 1);
      if (!last.containsKey("cache_control")) {
        last.put("cache_control", EPHEMERAL.copy());
      }
    }
    JsonArray messages = body.getJsonArray("messages");
    if (messages == null || messages.isEmpty() || !(messages.getValue(messages.size() - 1) instanceof JsonObject message)) {
      return;
    }
    Object content = message.getValue("content");
    List<Object> blocks;
    if (content instanceof String text) {
      blocks = new ArrayList<>(List.of(new JsonObject().put("type", "text").put("text", text)));
    } else if (content instanceof JsonArray array && !array.isEmpty() && array.getValue(array.size() - 1) instanceof JsonObject) {
      blocks = new ArrayList<>(array.getList());
    } else {
      return;
    }
    JsonObject lastBlock = (JsonObject) blocks.get(blocks.size() - 1);
    String type = lastBlock.getString("type", "");
    if (type.equals("thinking") || type.equals("redacted_thinking") || (type.equals("text") && lastBlock.getString("text", "").isEmpty())) {
      return;
    }
    // Shallow copies: the history's own objects stay untouched and large blocks are not copied.
    blocks.set(blocks.size() - 1, new JsonObject(new LinkedHashMap<>(lastBlock.getMap())).put("cache_control", EPHEMERAL.copy()));
    List<Object> copy = new ArrayList<>(messages.getList());
    copy.set(copy.size() - 1, new JsonObject(new LinkedHashMap<>(message.getMap())).put("content", new JsonArray(blocks)));
    body.put("messages", new JsonArray(copy));
  }

  private static JsonObject tool(JsonObject def) {
    JsonObject t = new JsonObject().put("name", def.getString("name"));
    if (def.getString("description") != null) {
      t.put("description", def.getString("description"));
    }
    JsonObject schema = def.getJsonObject("input_schema");
    t.put("input_schema", schema != null ? schema : new JsonObject().put("type", "object"));
    for (String extra : new String[] {"cache_control", "strict", "type"}) {
      if (def.containsKey(extra)) {
        t.put(extra, def.getValue(extra));
      }
    }
    return t;
  }

  /**
   * @param body an Anthropic {@code message} object
   * @param requestId the request id header, may be null
   * @return the canonical reply
   * @throws ModelException (protocol) when the body is not a Messages API {@code message}
   */
  public static ModelResponse response(JsonObject body, String requestId) {
    if (!"message".equals(body.getValue("type")) || !(body.getValue("content") instanceof JsonArray content)) {
      throw new ModelException(ModelException.Kind.PROTOCOL, "the response is not a Messages API message (no type "
          + "\"message\" with a content array)" + (requestId == null ? "" : " [request-id " + requestId + "]"), false, null);
    }
    return new ModelResponse(body.getString("id"), body.getString("model"), content,
        body.getString("stop_reason"), body.getString("stop_sequence"), body.getJsonObject("stop_details"),
        Usage.fromJson(body.getJsonObject("usage")), requestId, body);
  }
}
