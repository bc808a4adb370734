package io.agentbus.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class SchemaCleanerTest {

  @Test
  void dropsSchemaAndAddsObjectType() {
    JsonObject original = new JsonObject("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"properties\":{\"a\":{\"type\":\"string\"}}}");
    JsonObject cleaned = SchemaCleaner.clean(original);
    assertEquals("object", cleaned.getString("type"));
    assertFalse(cleaned.containsKey("$schema"));
    assertTrue(original.containsKey("$schema"), "the original is not modified");
  }

  @Test
  void emptyOrMissingSchemaBecomesAnEmptyObjectSchema() {
    assertEquals(new JsonObject("{\"type\":\"object\",\"properties\":{}}"), SchemaCleaner.clean(null));
    assertEquals(new JsonObject("{\"type\":\"object\",\"properties\":{}}"), SchemaCleaner.clean(new JsonObject()));
  }

  @Test
  void topLevelAnyOfIsMergedWithCommonRequired() {
    JsonObject cleaned = SchemaCleaner.clean(new JsonObject("{\"anyOf\":["
      + "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"a\":{\"type\":\"integer\"}},\"required\":[\"id\",\"a\"]},"
      + "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"id\",\"b\"]}]}"));
    assertFalse(cleaned.containsKey("anyOf"));
    assertEquals(new JsonObject("{\"id\":{\"type\":\"string\"},\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}}"), cleaned.getJsonObject("properties"));
    assertEquals("[\"id\"]", cleaned.getJsonArray("required").encode());
  }

  @Test
  void topLevelOneOfAndAllOfAreMerged() {
    JsonObject oneOf = SchemaCleaner.clean(new JsonObject("{\"type\":\"object\",\"oneOf\":[{\"properties\":{\"x\":{}}},{\"properties\":{\"y\":{}}}]}"));
    assertEquals(2, oneOf.getJsonObject("properties").size());
    assertFalse(oneOf.containsKey("required"));
    JsonObject allOf = SchemaCleaner.clean(new JsonObject("{\"allOf\":[{\"properties\":{\"x\":{}},\"required\":[\"x\"]},{\"properties\":{\"y\":{}},\"required\":[\"y\"]}]}"));
    assertEquals("[\"x\",\"y\"]", allOf.getJsonArray("required").encode());
    assertFalse(allOf.containsKey("allOf"));
  }

  @Test
  void nonObjectRootTypeAndBadRequiredAreFixed() {
    JsonObject cleaned = SchemaCleaner.clean(new JsonObject("{\"type\":[\"object\",\"null\"],\"required\":\"x\",\"not\":{},\"properties\":{\"x\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}}}"));
    assertEquals("object", cleaned.getString("type"));
    assertFalse(cleaned.containsKey("required"));
    assertFalse(cleaned.containsKey("not"));
    assertTrue(cleaned.getJsonObject("properties").getJsonObject("x").containsKey("anyOf"), "nested anyOf is kept");
  }
}
