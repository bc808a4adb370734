package io.agentbus.store;

import io.vertx.core.json.JsonObject;
import java.util.Objects;

/**
 * A conversation to {@link ConversationStore#insert insert}: it starts at version 0 with no
 * messages and no usage.
 *
 * @param id the conversation id, chosen by the caller (at most {@value #MAX_ID_LENGTH} characters)
 * @param tenant the tenant that owns it, or {@code null}
 * @param title a title, or {@code null} to take the first user text of the first turn
 * @param system the system prompt, or {@code null}
 * @param tools the tool selection, stored as given (opaque); {@code null} is stored as {@code {}}
 */
public record NewConversation(String id, String tenant, String title, String system, JsonObject tools) {

  /** The longest id a store accepts. */
  public static final int MAX_ID_LENGTH = 200;

  public NewConversation {
    Objects.requireNonNull(id, "'id' cannot be null");
    if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
      throw new IllegalArgumentException("id must have 1 to " + MAX_ID_LENGTH + " characters");
    }
    tools = tools == null ? new JsonObject() : tools;
  }

  /** @return a conversation without tenant, title, system prompt nor tool selection */
  public static NewConversation of(String id) {
    return new NewConversation(id, null, null, null, null);
  }
}
