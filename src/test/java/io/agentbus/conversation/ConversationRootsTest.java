package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.agentbus.store.StoredConversation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A conversation's own roots are kept in the store with its tool selection, and come back from it. */
class ConversationRootsTest {

  private static StoredConversation stored(JsonObject tools) {
    return new StoredConversation("c0-r", "t", null, null, tools, 1, 1, 0, new JsonObject(), List.of());
  }

  @Test
  void rootsRoundTripThroughTheStoredToolsColumn() {
    JsonArray roots = new JsonArray().add(new JsonObject().put("uri", "file:///home/a").put("name", "home"));
    Conversation c = new Conversation("c0-r", "t", null, new ToolSelection(List.of("mcp__x__*"))).withRoots(roots);
    JsonObject column = c.storedTools();
    assertEquals(new JsonObject().put("patterns", new JsonArray().add("mcp__x__*")).put("roots", roots), column);
    Conversation back = Conversation.fromStored(stored(column));
    assertEquals(roots, back.roots());
    assertEquals(roots, back.toJson().getJsonArray("roots"));
    assertEquals(new JsonArray().add("mcp__x__*"), back.tools().toJson());
  }

  @Test
  void withoutRootsNothingChangesInTheStore() {
    Conversation c = new Conversation("c0-r", "t", null, ToolSelection.ALL);
    assertEquals(ToolSelection.ALL.toStored(), c.storedTools());
    assertNull(Conversation.fromStored(stored(c.storedTools())).roots());
    assertNull(Conversation.fromStored(stored(null)).roots());
  }
}
