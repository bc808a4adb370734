package io.agentbus.conversation;

import io.vertx.core.Vertx;
import io.vertx.core.shareddata.Shareable;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live conversations of one Vert.x instance, shared by every conversation verticle
 * instance: whichever instance a request reaches can run the turn (it claims the
 * conversation, see {@link Conversation#tryClaim()}), so a turn stays on the event loop where
 * its request arrived instead of hopping to a fixed owner.
 */
final class ConversationRegistry implements Shareable {

  private static final String SHARED_KEY = "agentbus.conversation.registry";

  private final Map<String, Conversation> conversations = new ConcurrentHashMap<>();

  /** @return the registry of this Vert.x instance */
  static ConversationRegistry shared(Vertx vertx) {
    Objects.requireNonNull(vertx, "'vertx' cannot be null");
    return vertx.sharedData().<String, ConversationRegistry>getLocalMap(SHARED_KEY)
      .computeIfAbsent(SHARED_KEY, k -> new ConversationRegistry());
  }

  void add(Conversation c) {
    conversations.put(c.id(), c);
  }

  /** @return the conversation, or {@code null} */
  Conversation get(String id) {
    return conversations.get(id);
  }

  void remove(Conversation c) {
    conversations.remove(c.id(), c);
  }

  int size() {
    return conversations.size();
  }

  /** Forgets every conversation (the last instance stopped). */
  void clear() {
    conversations.clear();
  }

  /** @return a live view (weakly consistent iteration) */
  Collection<Conversation> all() {
    return conversations.values();
  }
}
