package io.agentbus.model;

import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Starts a mock server and a client pointed at it over loopback. */
final class MockFixture {

  static final String KEY = "sk-ant-test-SECRET-0123456789";

  MockModelServer mock;
  ModelClient client;

  static Future<MockFixture> start(Vertx vertx, MockModelOptions mockOptions, ModelOptions clientOptions) {
    MockFixture f = new MockFixture();
    return MockModelServer.start(vertx, mockOptions).map(m -> {
      f.mock = m;
      String base = "http://127.0.0.1:" + m.actualPort();
      if (ModelOptions.OPENAI.equals(clientOptions.getProvider())) {
        base += "/v1";
      }
      f.client = ModelClient.create(vertx, new ModelOptions(clientOptions).setBaseUrl(base));
      return f;
    });
  }

  static ModelOptions options(String provider) {
    return new ModelOptions().setProvider(provider).setApiKey(KEY).setModel("test-model");
  }

  static JsonObject weatherTool() {
    return new JsonObject().put("name", "get_weather").put("description", "Get the current weather for a city")
        .put("input_schema", new JsonObject().put("type", "object")
            .put("properties", new JsonObject().put("city", new JsonObject().put("type", "string")))
            .put("required", new JsonArray().add("city")));
  }

  static JsonObject tool(String name) {
    return new JsonObject().put("name", name).put("description", "tool " + name)
        .put("input_schema", new JsonObject().put("type", "object")
            .put("properties", new JsonObject().put("n", new JsonObject().put("type", "integer")))
            .put("required", new JsonArray().add("n")));
  }

  /** A script whose first reply has thinking, text (multi-byte) and a tool call, then a final answer. */
  static JsonArray toolScript() {
    return new JsonArray()
        .add(new JsonObject().put("stop_reason", "tool_use").put("content", new JsonArray()
            .add(new JsonObject().put("type", "thinking").put("thinking", "The user wants weather; I should call the tool.")
                .put("signature", "sig-abc123"))
            .add(new JsonObject().put("type", "text").put("text", "Checking the weather in Zürich 🌤 for you."))
            .add(new JsonObject().put("type", "tool_use").put("id", "toolu_01A").put("name", "get_weather")
                .put("input", new JsonObject().put("city", "Zürich").put("days", 3)
                    .put("opts", new JsonObject().put("units", "metric").put("tags", new JsonArray().add("a").add("b")))))
            .add(new JsonObject().put("type", "tool_use").put("id", "toolu_01B").put("name", "get_weather")
                .put("input", new JsonObject()))))
        .add(new JsonObject().put("text", "It is sunny in Zürich."));
  }

  static ModelRequest weatherRequest() {
    return new ModelRequest().setSystem("You are helpful.").setTools(new JsonArray().add(weatherTool()))
        .addMessage("user", "What's the weather in Zürich?");
  }
}
