package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** A caller's content is stored only in a shape the model API accepts. */
class UserContentTest {

  private static String rejected(Object content) {
    return assertThrows(UserContent.Invalid.class, () -> UserContent.normalize(content)).getMessage();
  }

  private static JsonArray blocks(String json) {
    return new JsonArray(json);
  }

  @Test
  void stringsAndWellFormedBlocksPass() throws Exception {
    assertEquals("hi", UserContent.normalize("hi"));
    JsonArray ok = blocks("""
      [{"type":"text","text":"look"},
       {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
       {"type":"image","source":{"type":"url","url":"https://example.com/a.png"}},
       {"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"},"title":"t","citations":{"enabled":true}},
       {"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]""");
    assertEquals(ok, UserContent.normalize(ok));
  }

  @Test
  void callerCacheControlIsDropped() throws Exception {
    Object out = UserContent.normalize(blocks("""
      [{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},
       {"type":"image","source":{"type":"url","url":"https://x/y.png","cache_control":{"type":"ephemeral"}}}]"""));
    assertEquals(blocks("""
      [{"type":"text","text":"a"},{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]"""), out);
  }

  @Test
  void deepNestingInsideAnAllowedBlockIsRefusedClearly() {
    JsonObject deep = new JsonObject();
    JsonObject at = deep;
    for (int i = 0; i < 997; i++) {
      JsonObject next = new JsonObject();
      at.put("x", next);
      at = next;
    }
    String why = rejected(new JsonArray().add(new JsonObject().put("type", "text").put("text", "hi").put("extra", deep)));
    assertTrue(why.contains("content[0] has an unknown field 'extra'"), why);
  }

  @Test
  void wrongTypesAndValuesAreNamed() {
    assertTrue(rejected("  ").contains("must not be empty"));
    assertTrue(rejected(42).contains("non-empty string or an array"));
    assertTrue(rejected(blocks("[{\"type\":\"text\",\"text\":5}]")).contains("content[0].text must be a non-empty string"));
    assertTrue(rejected(blocks("[{\"type\":\"tool_result\",\"tool_use_id\":\"x\"}]")).contains("type 'tool_result'"));
    assertTrue(rejected(blocks("[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/bmp\",\"data\":\"x\"}}]"))
      .contains("content[0].source.media_type"));
    assertTrue(rejected(blocks("[{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":\"file:///etc/passwd\"}}]"))
      .contains("http(s) URL"));
    assertTrue(rejected(blocks("[{\"type\":\"document\",\"source\":{\"type\":\"text\",\"media_type\":\"text/plain\",\"data\":\"x\"},\"citations\":{\"enabled\":\"yes\"}}]"))
      .contains("citations"));
    assertTrue(rejected(blocks("[\"just a string\"]")).contains("content[0] must be an object"));
  }
}
