package io.agentbus.store;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * One page of a tenant's conversations, newest first ({@code updatedAt}, then id, descending).
 *
 * @param items at most the requested number of conversations
 * @param nextCursor the opaque cursor of the next page, or {@code null} when this is the last
 */
public record ConversationPage(List<ConversationSummary> items, String nextCursor) {

  public ConversationPage {
    items = List.copyOf(items);
  }

  /** @return {@code {items: [...], nextCursor: "..." | null}} */
  public JsonObject toJson() {
    JsonArray array = new JsonArray();
    items.forEach(item -> array.add(item.toJson()));
    return new JsonObject().put("items", array).put("nextCursor", nextCursor);
  }
}
