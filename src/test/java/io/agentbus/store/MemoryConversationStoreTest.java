package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.store.impl.MemoryConversationStore;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The contract on the {@code memory} store, and its byte bound. */
class MemoryConversationStoreTest extends ConversationStoreContract {

  @Override
  protected StoreOptions options() {
    return new StoreOptions().setType(StoreOptions.Type.MEMORY);
  }

  @Override
  protected boolean durable() {
    return false;
  }

  @Test
  void aFullStoreRefusesWithUnavailableAndAcceptsAgainOnceADeleteFreedRoom() throws Exception {
    MemoryConversationStore store = new MemoryConversationStore(64 * 1024);
    JsonObject big = new JsonObject().put("role", "user").put("content", "x".repeat(20_000));
    store.insert(NewConversation.of("c0-a")).await(5, TimeUnit.SECONDS);
    store.insert(NewConversation.of("c0-b")).await(5, TimeUnit.SECONDS);
    store.appendTurn("c0-a", 0, List.of(big), null).await(5, TimeUnit.SECONDS);
    store.appendTurn("c0-b", 0, List.of(big), null).await(5, TimeUnit.SECONDS);
    StoreException full = failure(store.appendTurn("c0-a", 1, List.of(big, big), null));
    assertEquals(StoreException.Kind.UNAVAILABLE, full.kind());
    assertTrue(full.getMessage().contains("memory is full"), full.getMessage());
    assertEquals(1, store.load("c0-a").await(5, TimeUnit.SECONDS).version(), "the refused turn left nothing");
    store.delete("c0-b").await(5, TimeUnit.SECONDS);
    assertEquals(2, store.appendTurn("c0-a", 1, List.of(big), null).await(5, TimeUnit.SECONDS).version());
  }
}
