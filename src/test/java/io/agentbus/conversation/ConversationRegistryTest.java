package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.store.StoredConversation;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-memory cache of conversations: bounded by count and bytes, evicting the idle ones least recently active. */
class ConversationRegistryTest {

  private static Conversation withHistory(String id, int chars) {
    List<JsonObject> messages = chars == 0 ? List.of()
      : List.of(new JsonObject().put("role", "user").put("content", "x".repeat(chars)));
    return Conversation.fromStored(new StoredConversation(id, null, null, null, new JsonObject(), 0, 0, messages.size(),
      new JsonObject(), messages));
  }

  @Test
  void pastItsBytesTheIdleConversationsLeaveMemoryOldestFirstAndRunningOnesStay() {
    ConversationRegistry registry = new ConversationRegistry(1_000, 100_000);
    List<Conversation> all = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      Conversation c = withHistory("c0-" + i, 10_000);
      registry.addIfAbsent(c);
      all.add(c);
    }
    assertFalse(registry.full(0, 0));
    assertTrue(registry.full(0, 20_000), "two more histories of 10 KB do not fit");
    Conversation running = all.get(0);
    assertTrue(running.tryClaim(), "the oldest runs a turn");
    long now = System.nanoTime();
    int evicted = registry.makeRoom(20_000, now + 1_000_000_000L);
    assertTrue(evicted >= 2, "evicted " + evicted);
    assertFalse(registry.full(0, 20_000));
    assertNotNull(registry.get("c0-0"), "a conversation running a turn never leaves memory");
    assertNull(registry.get("c0-1"), "the least recently active idle one left first");
    assertTrue(all.get(1).gone(), "and can never be claimed again: its next request reloads it");
    assertNotNull(registry.get("c0-8"), "the most recently active one stays");
    assertEquals(registry.heapBytes(), registry.all().stream().mapToLong(Conversation::heapBytes).sum(),
      "the byte count follows what is held");
  }

  @Test
  void pastItsCountTheSameHolds() {
    ConversationRegistry registry = new ConversationRegistry(10, Long.MAX_VALUE);
    for (int i = 0; i < 10; i++) {
      registry.addIfAbsent(withHistory("c0-" + i, 0));
    }
    assertTrue(registry.full(1, 0));
    assertTrue(registry.makeRoom(0, System.nanoTime()) >= 1);
    assertFalse(registry.full(1, 0));
  }
}
