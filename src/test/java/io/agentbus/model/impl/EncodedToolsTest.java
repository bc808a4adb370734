package io.agentbus.model.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agentbus.model.ModelRequest;
import io.agentbus.model.anthropic.AnthropicCodec;
import io.agentbus.model.openai.OpenAiCodec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link EncodedTools}: a request body with a shared tools array is the same JSON as the body
 * encoded whole, with both providers' codecs (prompt caching's breakpoint on the last tool
 * included); the array is encoded once while it is kept, and tools that are not shared are
 * encoded every time.
 */
class EncodedToolsTest {

  private static JsonArray tools(int n) {
    JsonArray tools = new JsonArray();
    for (int i = 0; i < n; i++) {
      tools.add(new JsonObject().put("name", "mcp__s__t" + i).put("description", "tool \"" + i + "\"\nsecond line")
        .put("input_schema", new JsonObject().put("type", "object").put("properties",
          new JsonObject().put("q", new JsonObject().put("type", "string").put("pattern", "^[a-z]+$")))
          .put("required", new JsonArray().add("q"))));
    }
    return tools;
  }

  private static ModelRequest request(JsonArray tools, boolean shared, String text) {
    return new ModelRequest().setModel("m").setSystem("be brief")
      .setMessages(new JsonArray().add(new JsonObject().put("role", "user").put("content", text)))
      .setTools(tools).setToolsShared(shared).setToolChoice(new JsonObject().put("type", "auto"));
  }

  private static void sameJsonAsWhole(Function<ModelRequest, JsonObject> codec) {
    EncodedTools encoded = new EncodedTools();
    JsonArray shared = tools(5);
    for (String text : new String[] {"first", "second"}) {
      ModelRequest request = request(shared, true, text);
      JsonObject whole = codec.apply(request);
      assertEquals(whole, new JsonObject(encoded.encode(request, codec.apply(request))));
    }
    assertEquals(1, encoded.encodings());
  }

  @Test
  void anthropicBodiesAreTheSameJsonAndTheToolsAreEncodedOnce() {
    sameJsonAsWhole(r -> AnthropicCodec.requestBody(r, null, false));
    sameJsonAsWhole(r -> AnthropicCodec.requestBody(r, null, true, true));
  }

  @Test
  void openAiBodiesAreTheSameJsonAndTheToolsAreEncodedOnce() {
    sameJsonAsWhole(r -> OpenAiCodec.requestBody(r, null, true));
  }

  @Test
  void eachSharedArrayIsEncodedOnceAndToolsNotSharedEveryTime() {
    EncodedTools encoded = new EncodedTools();
    JsonArray a = tools(3);
    JsonArray b = tools(3);
    for (int i = 0; i < 3; i++) {
      encoded.encode(request(a, true, "x"), AnthropicCodec.requestBody(request(a, true, "x"), null, false));
      encoded.encode(request(b, true, "x"), AnthropicCodec.requestBody(request(b, true, "x"), null, false));
    }
    // equal content, two arrays: identity, not content, keeps them apart
    assertEquals(2, encoded.encodings());
    ModelRequest notShared = request(a, false, "x");
    JsonObject body = AnthropicCodec.requestBody(notShared, null, false);
    assertEquals(body.toBuffer(), encoded.encode(notShared, body.copy()));
    assertEquals(2, encoded.encodings());
  }

  @Test
  void noToolsIsTheBodyAsItIs() {
    EncodedTools encoded = new EncodedTools();
    ModelRequest request = request(new JsonArray(), true, "x");
    JsonObject body = AnthropicCodec.requestBody(request, null, false);
    assertEquals(body.toBuffer(), encoded.encode(request, body.copy()));
    assertEquals(0, encoded.encodings());
  }

  @Test
  void theCacheIsBoundedAndStartsOverWhenFull() {
    EncodedTools encoded = new EncodedTools();
    JsonArray first = tools(1);
    encoded.encode(request(first, true, "x"), AnthropicCodec.requestBody(request(first, true, "x"), null, false));
    for (int i = 0; i < EncodedTools.MAX_ARRAYS; i++) {
      JsonArray other = tools(1);
      encoded.encode(request(other, true, "x"), AnthropicCodec.requestBody(request(other, true, "x"), null, false));
    }
    long before = encoded.encodings();
    encoded.encode(request(first, true, "x"), AnthropicCodec.requestBody(request(first, true, "x"), null, false));
    assertEquals(before + 1, encoded.encodings(), "the first array was dropped when the map filled up");
  }
}
