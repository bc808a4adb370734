package io.agentbus.model.anthropic;

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
    if (stream) {
      body.put("stream", true);
    } else {
      body.remove("stream");
    }
    return body;
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
   */
  public static ModelResponse response(JsonObject body, String requestId) {
    JsonArray content = body.getJsonArray("content", new JsonArray());
    return new ModelResponse(body.getString("id"), body.getString("model"), content,
        body.getString("stop_reason"), body.getString("stop_sequence"), body.getJsonObject("stop_details"),
        Usage.fromJson(body.getJsonObject("usage")), requestId, body);
  }
}
