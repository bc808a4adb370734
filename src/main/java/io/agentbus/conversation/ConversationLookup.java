package io.agentbus.conversation;

import io.agentbus.bus.FailureCodes;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.store.ConversationStore;
import io.agentbus.store.StoreException;
import io.agentbus.store.StoredConversation;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the conversation a request names: the copy in memory ({@link ConversationRegistry}),
 * else the store's, loaded into memory once there is room for it. Another tenant's
 * conversation is refused as one that does not exist. On a clustered bus a copy in memory is
 * used only while the store's version says no other node committed since.
 */
final class ConversationLookup {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationLookup.class);

  private final ConversationStore store;
  private final ConversationRegistry conversations;
  private final AgentbusMetrics metrics;
  private final boolean clustered;

  ConversationLookup(ConversationStore store, ConversationRegistry conversations, AgentbusMetrics metrics, boolean clustered) {
    this.store = store;
    this.conversations = conversations;
    this.metrics = metrics;
    this.clustered = clustered;
  }

  private static boolean sameTenant(String owner, JsonObject body) {
    Object tenant = body.getValue("tenant");
    return owner == null ? tenant == null : owner.equals(tenant);
  }

  /**
   * @return the conversation in memory, else loaded from the store into memory; fails with
   *     404 for another tenant's conversation, as for one that does not exist
   */
  Future<Conversation> resolve(String id, JsonObject body) {
    Conversation cached = conversations.get(id);
    if (cached != null) {
      if (!sameTenant(cached.tenant(), body)) {
        return Future.failedFuture(Refusal.notFound(id));
      }
      return clustered && !cached.busy() ? current(cached, body) : Future.succeededFuture(cached);
    }
    if (ConversationIds.shardOf(id) < 0) {
      return Future.failedFuture(Refusal.notFound(id));
    }
    return load(id, body);
  }

  /**
   * In a cluster, another node may have committed a turn of this conversation (or deleted it)
   * since memory loaded it: the store's version says whether the copy is still current.
   */
  private Future<Conversation> current(Conversation cached, JsonObject body) {
    long seen = cached.version();
    return store.version(cached.id()).transform(ar -> {
      if (ar.succeeded() && ar.result() == seen) {
        return Future.succeededFuture(cached);
      }
      boolean gone = ar.failed() && ar.cause() instanceof StoreException se && se.kind() == StoreException.Kind.NOT_FOUND;
      if (ar.failed() && !gone) {
        return Future.failedFuture(Refusal.ofStore(cached.id(), ar.cause()));
      }
      if (!cached.busy() && conversations.retire(cached)) {
        metrics.conversationsClosed(1);
      }
      return gone ? Future.failedFuture(Refusal.notFound(cached.id())) : load(cached.id(), body);
    });
  }

  private Future<Conversation> load(String id, JsonObject body) {
    return store.load(id).transform(ar -> {
      if (ar.failed()) {
        return Future.failedFuture(Refusal.ofStore(id, ar.cause()));
      }
      StoredConversation stored = ar.result();
      if (!sameTenant(stored.tenant(), body)) {
        return Future.failedFuture(Refusal.notFound(id));
      }
      Conversation loaded;
      try {
        loaded = Conversation.fromStored(stored);
      } catch (RuntimeException e) {
        LOG.warn("[{}] cannot be loaded: {}", id, e.getMessage());
        return Future.failedFuture(new Refusal(FailureCodes.INTERNAL,
          "conversation '" + id + "' cannot be loaded: " + e.getMessage(), true));
      }
      if (conversations.get(id) == null && !roomFor(1, loaded.heapBytes())) {
        return Future.failedFuture(memoryFull());
      }
      Conversation c = conversations.addIfAbsent(loaded);
      if (c == loaded) {
        metrics.conversationOpened();
      }
      return Future.succeededFuture(c);
    });
  }

  /**
   * @return whether memory holds {@code moreConversations} more conversations and
   *     {@code moreBytes} more history, once the least recently active idle ones left; while
   *     another instance is making room, yes (the overshoot is bounded by the requests in flight)
   */
  boolean roomFor(int moreConversations, long moreBytes) {
    if (!conversations.full(moreConversations, moreBytes)) {
      return true;
    }
    int evicted = conversations.makeRoom(moreBytes, System.nanoTime());
    if (evicted < 0) {
      return true;
    }
    if (evicted > 0) {
      metrics.conversationsClosed(evicted);
    }
    return !conversations.full(moreConversations, moreBytes);
  }

  /** @return the refusal when memory holds no more conversations */
  Refusal memoryFull() {
    return new Refusal(FailureCodes.UNAVAILABLE, "too many conversations running: "
      + conversations.size() + " in memory holding about " + conversations.heapBytes() / 1024 + " KiB of history (limits: "
      + conversations.maxCount() + " conversations, " + conversations.maxBytes() / 1024 + " KiB); retry later");
  }
}
