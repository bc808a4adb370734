package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link OfferedTools}: conversations with the same selection share one array per catalog
 * snapshot (so the model client can encode it once), a new snapshot gets new selections, and
 * past the bound a selection is still right but not shared.
 */
class OfferedToolsTest {

  private static JsonArray catalog(String... names) {
    JsonArray tools = new JsonArray();
    for (String n : names) {
      tools.add(new JsonObject().put("name", n).put("input_schema", new JsonObject().put("type", "object")));
    }
    return tools;
  }

  private static List<String> names(JsonArray tools) {
    return tools.stream().map(t -> ((JsonObject) t).getString("name")).toList();
  }

  @Test
  void everyToolIsTheCatalogsOwnArray() {
    JsonArray catalog = catalog("mcp__a__x", "mcp__b__y");
    OfferedTools.Offer offer = new OfferedTools().offered(ToolSelection.ALL, catalog);
    assertSame(catalog, offer.tools());
    assertTrue(offer.shared());
  }

  @Test
  void equalSelectionsShareOneArrayUntilTheCatalogChanges() {
    OfferedTools offered = new OfferedTools();
    JsonArray catalog = catalog("mcp__a__x", "mcp__a__z", "mcp__b__y");
    OfferedTools.Offer first = offered.offered(new ToolSelection(List.of("mcp__a__*")), catalog);
    OfferedTools.Offer second = offered.offered(new ToolSelection(List.of("mcp__a__*")), catalog);
    assertEquals(List.of("mcp__a__x", "mcp__a__z"), names(first.tools()));
    assertTrue(first.shared());
    assertTrue(second.shared());
    assertSame(first.tools(), second.tools());
    OfferedTools.Offer other = offered.offered(new ToolSelection(List.of("mcp__b__y")), catalog);
    assertEquals(List.of("mcp__b__y"), names(other.tools()));

    JsonArray next = catalog("mcp__a__x", "mcp__b__y");
    OfferedTools.Offer after = offered.offered(new ToolSelection(List.of("mcp__a__*")), next);
    assertNotSame(first.tools(), after.tools());
    assertEquals(List.of("mcp__a__x"), names(after.tools()));
  }

  @Test
  void pastTheBoundASelectionIsRightButNotShared() {
    OfferedTools offered = new OfferedTools();
    JsonArray catalog = catalog("mcp__a__x");
    for (int i = 0; i < OfferedTools.MAX_SELECTIONS; i++) {
      assertTrue(offered.offered(new ToolSelection(List.of("mcp__a__x", "n" + i)), catalog).shared());
    }
    OfferedTools.Offer past = offered.offered(new ToolSelection(List.of("mcp__a__*")), catalog);
    assertFalse(past.shared());
    assertEquals(List.of("mcp__a__x"), names(past.tools()));
  }
}
