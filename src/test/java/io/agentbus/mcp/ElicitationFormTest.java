package io.agentbus.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ElicitationFormTest {

  private static JsonObject schema() {
    return new JsonObject().put("type", "object").put("properties", new JsonObject()
        .put("name", new JsonObject().put("type", "string").put("default", "John Doe"))
        .put("age", new JsonObject().put("type", "integer").put("default", 30))
        .put("verified", new JsonObject().put("type", "boolean").put("default", true))
        .put("note", new JsonObject().put("type", "string")))
      .put("required", new JsonArray().add("name"));
  }

  @Test
  void defaultsFillOnlyWhatTheAnswerLeftOut() {
    JsonObject out = ElicitationForm.parse(schema()).withDefaults(new JsonObject().put("age", 41));
    assertEquals(new JsonObject().put("age", 41).put("name", "John Doe").put("verified", true), out);
  }

  @Test
  void nestedOrReferencingSchemasAreRefused() {
    JsonObject nested = schema();
    nested.getJsonObject("properties").put("address", new JsonObject().put("type", "object"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ElicitationForm.parse(nested));
    assertTrue(e.getMessage().contains("'address'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ElicitationForm.parse(schema().put("$ref", "#/x")));
    assertThrows(IllegalArgumentException.class, () -> ElicitationForm.parse(new JsonObject().put("type", "string")));
    assertThrows(IllegalArgumentException.class, () -> ElicitationForm.parse(null));
    JsonObject many = new JsonObject();
    for (int i = 0; i <= ElicitationForm.MAX_PROPERTIES; i++) {
      many.put("p" + i, new JsonObject().put("type", "string"));
    }
    assertThrows(IllegalArgumentException.class, () -> ElicitationForm.parse(new JsonObject().put("type", "object")
      .put("properties", many)));
  }
}
