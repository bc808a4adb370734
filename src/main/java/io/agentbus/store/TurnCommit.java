package io.agentbus.store;

import io.vertx.core.json.JsonObject;

/**
 * What {@link ConversationStore#appendTurn} committed.
 *
 * @param version the conversation's new version: expect it in the next {@code appendTurn}
 * @param updatedAt when the turn committed, epoch milliseconds
 * @param messageCount the number of messages stored now
 * @param usage the new usage totals
 * @param title the title now (set by the first turn that had user text), or {@code null}
 */
public record TurnCommit(long version, long updatedAt, int messageCount, JsonObject usage, String title) {
}
