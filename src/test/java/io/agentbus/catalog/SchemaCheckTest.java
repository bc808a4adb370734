package io.agentbus.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.LogCapture;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SchemaCheckTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  @Test
  void dialectFollowsDollarSchemaAndDefaultsTo202012() {
    assertEquals(Draft.DRAFT7, SchemaCheck.draftOf("http://json-schema.org/draft-07/schema#"));
    assertEquals(Draft.DRAFT7, SchemaCheck.draftOf("http://json-schema.org/draft-07/schema"));
    assertEquals(Draft.DRAFT4, SchemaCheck.draftOf("http://json-schema.org/draft-04/schema#"));
    assertEquals(Draft.DRAFT202012, SchemaCheck.draftOf("https://json-schema.org/draft/2020-12/schema"));
    assertEquals(Draft.DRAFT202012, SchemaCheck.draftOf(null));
  }

  @Test
  void violationsAreListedPrecisely() {
    SchemaCheck check = SchemaCheck.compile("t", new JsonObject("{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
      + "\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"],\"additionalProperties\":false}"));
    assertTrue(check.usable());
    assertEquals(List.of(), check.violations(new JsonObject().put("message", "hi")));
    List<String> wrongType = check.violations(new JsonObject().put("message", 42));
    assertEquals(1, wrongType.size(), wrongType::toString);
    assertTrue(wrongType.get(0).startsWith("/message: "), wrongType::toString);
    List<String> extra = check.violations(new JsonObject().put("message", "x").put("zz", 1));
    assertEquals(1, extra.size(), extra::toString);
    assertTrue(extra.get(0).startsWith("/zz: "), extra::toString);
    List<String> missing = check.violations(new JsonObject());
    assertTrue(missing.get(0).contains("message"), missing::toString);
  }

  @Test
  void anUnsupportedDialectIsLoggedAndChecksNothing() {
    SchemaCheck check = SchemaCheck.compile("odd/tool inputSchema", new JsonObject("{\"$schema\":\"http://json-schema.org/draft-03/schema#\",\"type\":\"object\"}"));
    assertFalse(check.usable());
    assertEquals(List.of(), check.violations("not even an object"));
    assertTrue(logs.contains("odd/tool inputSchema: the schema cannot be compiled"));
  }

  @Test
  void aRefThatFailsWhileValidatingIsLoggedOnceThenIgnored() {
    SchemaCheck check = SchemaCheck.compile("ref/tool inputSchema", new JsonObject(
      "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/missing\"}}}"));
    assertEquals(List.of(), check.violations(new JsonObject().put("a", 1)));
    assertEquals(List.of(), check.violations(new JsonObject().put("a", 2)));
    assertFalse(check.usable());
    long logged = logs.count("ref/tool inputSchema");
    assertEquals(1, logged);
  }
}
