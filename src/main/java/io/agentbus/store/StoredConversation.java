package io.agentbus.store;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A conversation as committed: its settings, every message of every committed turn in order,
 * and its usage totals. A turn that had not committed (the process died during it) is absent
 * as a whole.
 *
 * @param id the conversation id
 * @param tenant the owning tenant, or {@code null}
 * @param title the title (the first user text, truncated), or {@code null} before the first turn
 * @param system the system prompt, or {@code null}
 * @param tools the tool selection as inserted (opaque)
 * @param createdAt when it was inserted, epoch milliseconds
 * @param updatedAt when its last turn committed (or it was inserted), epoch milliseconds
 * @param version the number of committed turns: pass it to the next {@code appendTurn}
 * @param usage the usage totals: the field-wise sum of every turn's usage object
 * @param messages the messages, Anthropic-shaped, oldest first (unmodifiable; the objects are
 *     the caller's: no other reader shares them)
 */
public record StoredConversation(String id, String tenant, String title, String system, JsonObject tools,
                                 long createdAt, long updatedAt, long version, JsonObject usage,
                                 List<JsonObject> messages) {

  /** @return the number of committed turns (the same as {@link #version()}) */
  public long turns() {
    return version;
  }

  /**
   * @return {@code {id, tenant?, title, system?, tools, createdAt, updatedAt, version, turns, usage,
   *     messages}}
   */
  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("id", id);
    if (tenant != null) {
      json.put("tenant", tenant);
    }
    json.put("title", title);
    if (system != null) {
      json.put("system", system);
    }
    return json
      .put("tools", tools)
      .put("createdAt", createdAt)
      .put("updatedAt", updatedAt)
      .put("version", version)
      .put("turns", version)
      .put("usage", usage)
      .put("messages", new JsonArray(new ArrayList<>(messages)));
  }
}
