package io.agentbus.store;

import io.vertx.core.json.JsonObject;

/**
 * One item of a {@link ConversationPage}: a conversation without its messages.
 *
 * @param id the conversation id
 * @param tenant the owning tenant, or {@code null}
 * @param title the title, or {@code null}
 * @param createdAt epoch milliseconds
 * @param updatedAt epoch milliseconds (the listing's sort key)
 * @param usage the usage totals
 * @param turns the number of committed turns (its version)
 */
public record ConversationSummary(String id, String tenant, String title, long createdAt, long updatedAt,
                                  JsonObject usage, long turns) {

  /** @return {@code {id, title, createdAt, updatedAt, usage, turns}} */
  public JsonObject toJson() {
    return new JsonObject()
      .put("id", id)
      .put("title", title)
      .put("createdAt", createdAt)
      .put("updatedAt", updatedAt)
      .put("usage", usage)
      .put("turns", turns);
  }
}
