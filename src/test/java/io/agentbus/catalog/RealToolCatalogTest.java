package io.agentbus.catalog;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.RealTools;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Naming, projection, clean-up and validation on the tool lists of the real servers. */
@Integration
@ExtendWith(VertxExtension.class)
class RealToolCatalogTest {

  private static Map<String, List<JsonObject>> real;
  private static CatalogSnapshot snapshot;

  @BeforeAll
  static void fetch(Vertx vertx, VertxTestContext ctx) throws Exception {
    Path root = Files.createTempDirectory("catalog-fs");
    RealTools.fetch(vertx, root).onComplete(ctx.succeeding(tools -> {
      real = tools;
      snapshot = CatalogSnapshot.build(1, tools, null);
      ctx.completeNow();
    }));
  }

  @Test
  void everyRealToolGetsAValidUniqueNameAndReverseMapping() {
    int count = real.values().stream().mapToInt(List::size).sum();
    assertTrue(count >= 25, "both servers listed their tools: " + count);
    assertEquals(count, snapshot.size());
    Set<String> names = new HashSet<>();
    for (CatalogEntry e : snapshot.entries()) {
      assertTrue(ToolNames.VALID.matcher(e.name()).matches(), e.name());
      assertTrue(names.add(e.name()));
      assertSame(e, snapshot.byTool(e.server(), e.tool()));
      assertSame(e, snapshot.byName(e.name()));
    }
    assertEquals("echo", snapshot.byName("mcp__everything__echo").tool());
    assertEquals("filesystem", snapshot.byName("mcp__filesystem__read_text_file").server());
  }

  @Test
  void projectionsCarryOnlyNameDescriptionAndCleanedSchema() {
    JsonArray anthropic = snapshot.anthropicTools();
    JsonArray openai = snapshot.openaiTools();
    assertEquals(snapshot.size(), anthropic.size());
    for (int i = 0; i < anthropic.size(); i++) {
      JsonObject a = anthropic.getJsonObject(i);
      assertEquals(Set.of("name", "description", "input_schema"), a.fieldNames());
      JsonObject schema = a.getJsonObject("input_schema");
      assertEquals("object", schema.getString("type"));
      assertFalse(schema.containsKey("$schema"));
      JsonObject o = openai.getJsonObject(i);
      assertEquals(Set.of("type", "function"), o.fieldNames());
      assertEquals("function", o.getString("type"));
      assertEquals(Set.of("name", "description", "parameters"), o.getJsonObject("function").fieldNames());
      assertEquals(a.getString("name"), o.getJsonObject("function").getString("name"));
      assertEquals(schema, o.getJsonObject("function").getJsonObject("parameters"));
    }
    CatalogEntry echo = snapshot.byName("mcp__everything__echo");
    assertNotNull(echo.inputSchema().getString("$schema"), "the original keeps $schema for validation");
  }

  @Test
  void realSchemasCompileAndValidate() {
    for (CatalogEntry e : snapshot.entries()) {
      assertTrue(e.input().usable(), e.name() + ": " + e.input().problem());
    }
    CatalogEntry echo = snapshot.byName("mcp__everything__echo");
    assertEquals(List.of(), echo.input().violations(new JsonObject().put("message", "hi")));
    List<String> bad = echo.input().violations(new JsonObject().put("message", 42));
    assertFalse(bad.isEmpty());
    assertTrue(bad.get(0).startsWith("/message"), bad::toString);
    CatalogEntry sum = snapshot.byName("mcp__everything__get-sum");
    assertFalse(sum.input().violations(new JsonObject().put("a", 1)).isEmpty(), "b is required");
    CatalogEntry read = snapshot.byName("mcp__filesystem__read_text_file");
    assertFalse(read.input().violations(new JsonObject()).isEmpty(), "path is required");
    assertEquals(List.of(), read.input().violations(new JsonObject().put("path", "/tmp/x")));
  }

  @Test
  void outputSchemasOfRealToolsCompile() {
    CatalogEntry structured = snapshot.byName("mcp__everything__get-structured-content");
    assertNotNull(structured.output(), "get-structured-content declares an outputSchema");
    assertTrue(structured.output().usable(), String.valueOf(structured.output().problem()));
  }

  @Test
  void aRebuildKeepsCompiledEntriesOfUnchangedTools() {
    Map<String, List<JsonObject>> changed = new HashMap<>(real);
    List<JsonObject> fs = new ArrayList<>(real.get("filesystem"));
    fs.remove(0);
    changed.put("filesystem", fs);
    CatalogSnapshot next = CatalogSnapshot.build(2, changed, snapshot);
    assertEquals(snapshot.size() - 1, next.size());
    assertSame(snapshot.byName("mcp__everything__echo"), next.byName("mcp__everything__echo"));
    assertNull(next.byTool("filesystem", real.get("filesystem").get(0).getString("name")));
  }

  @Test
  void snapshotJsonForEachProvider() {
    assertEquals(snapshot.anthropicTools(), snapshot.toJson("anthropic").getJsonArray("tools"));
    assertEquals(snapshot.openaiTools(), snapshot.toJson("openai").getJsonArray("tools"));
    JsonObject own = snapshot.toJson(null);
    assertEquals(1, own.getLong("version"));
    JsonObject first = own.getJsonArray("tools").getJsonObject(0);
    assertTrue(first.containsKey("server") && first.containsKey("tool") && first.containsKey("inputSchema"));
  }
}
