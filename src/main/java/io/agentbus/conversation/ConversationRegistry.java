package io.agentbus.conversation;

import io.vertx.core.Vertx;
import io.vertx.core.shareddata.Shareable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The conversations of one Vert.x instance held in memory, shared by every conversation
 * verticle instance: whichever instance a request reaches can run the turn (it claims the
 * conversation, see {@link Conversation#tryClaim()}), so a turn stays on the event loop where
 * its request arrived instead of hopping to a fixed owner.
 *
 * <p>It is a cache in front of the conversation store, bounded by count and by the estimated
 * heap bytes of the histories it holds. Past either bound it evicts conversations that run no
 * turn, least recently active first among a bounded sample (so an eviction never scans
 * everything on an event loop); an evicted conversation is loaded from the store again on
 * its next request.
 */
final class ConversationRegistry implements Shareable {

  private static final String SHARED_KEY = "agentbus.conversation.registry";
  /** Conversations looked at per eviction round. */
  static final int SAMPLE = 1024;

  private final Map<String, Conversation> conversations = new ConcurrentHashMap<>();
  private final AtomicLong heapBytes = new AtomicLong();
  private final AtomicBoolean evicting = new AtomicBoolean();
  private final int maxCount;
  private final long maxBytes;

  ConversationRegistry(int maxCount, long maxBytes) {
    this.maxCount = maxCount;
    this.maxBytes = maxBytes;
  }

  /**
   * @return the registry of this Vert.x instance; the first caller's limits size it (every
   *     instance of one deployment has the same options)
   */
  static ConversationRegistry shared(Vertx vertx, int maxCount, long maxBytes) {
    Objects.requireNonNull(vertx, "'vertx' cannot be null");
    return vertx.sharedData().<String, ConversationRegistry>getLocalMap(SHARED_KEY)
      .computeIfAbsent(SHARED_KEY, k -> new ConversationRegistry(maxCount, maxBytes));
  }

  /** Forgets the registry of this Vert.x instance (the last conversation instance stopped). */
  static void release(Vertx vertx) {
    vertx.sharedData().<String, ConversationRegistry>getLocalMap(SHARED_KEY).remove(SHARED_KEY);
  }

  /**
   * Adds {@code c} unless the id is cached already.
   *
   * @return the cached conversation: {@code c}, or the one that was there
   */
  Conversation addIfAbsent(Conversation c) {
    Conversation before = conversations.putIfAbsent(c.id(), c);
    if (before != null) {
      return before;
    }
    heapBytes.addAndGet(c.heapBytes());
    return c;
  }

  /** @return the conversation, or {@code null} when it is not in memory */
  Conversation get(String id) {
    return conversations.get(id);
  }

  /** Forgets {@code c} (when it is the cached one); the caller holds its claim. */
  boolean remove(Conversation c) {
    if (conversations.remove(c.id(), c)) {
      heapBytes.addAndGet(-c.heapBytes());
      return true;
    }
    return false;
  }

  /** A cached conversation's committed history grew by {@code bytes}. */
  void grew(Conversation c, long bytes) {
    if (conversations.get(c.id()) == c) {
      heapBytes.addAndGet(bytes);
    }
  }

  int size() {
    return conversations.size();
  }

  /** @return the estimated heap bytes of the cached histories */
  long heapBytes() {
    return heapBytes.get();
  }

  long maxBytes() {
    return maxBytes;
  }

  int maxCount() {
    return maxCount;
  }

  /** @return whether {@code moreConversations} more conversations and {@code moreBytes} more bytes would not fit */
  boolean full(int moreConversations, long moreBytes) {
    return conversations.size() + moreConversations > maxCount || heapBytes.get() + moreBytes > maxBytes;
  }

  /**
   * Makes room: while the cache is over {@code 90%} of a bound (or {@code moreBytes} would not
   * fit), evicts the least recently active conversations that run no turn, from a sample of
   * {@value #SAMPLE}. One caller evicts at a time.
   *
   * @return how many were evicted, or {@code -1} when another caller is making room right now
   */
  int makeRoom(long moreBytes, long nowNanos) {
    if (!evicting.compareAndSet(false, true)) {
      return -1;
    }
    try {
      int evicted = 0;
      for (int round = 0; round < 4 && overLowWater(moreBytes); round++) {
        int n = evictRound(moreBytes, nowNanos);
        evicted += n;
        if (n == 0) {
          break;
        }
      }
      return evicted;
    } finally {
      evicting.set(false);
    }
  }

  private boolean overLowWater(long moreBytes) {
    return conversations.size() + 1 > maxCount * 0.9 || heapBytes.get() + moreBytes > maxBytes * 0.9;
  }

  private int evictRound(long moreBytes, long nowNanos) {
    List<Conversation> sample = new ArrayList<>(Math.min(SAMPLE, conversations.size()));
    Iterator<Conversation> it = conversations.values().iterator();
    while (it.hasNext() && sample.size() < SAMPLE) {
      Conversation c = it.next();
      if (!c.busy()) {
        sample.add(c);
      }
    }
    sample.sort(Comparator.comparingLong(c -> -c.idleNanos(nowNanos)));
    int evicted = 0;
    for (Conversation c : sample) {
      if (!overLowWater(moreBytes) || evicted >= sample.size() / 2 + 1) {
        break;
      }
      if (evict(c)) {
        evicted++;
      }
    }
    return evicted;
  }

  /**
   * Takes {@code c} out of memory unless it runs a turn; the store keeps it.
   *
   * @return whether it was taken out (false: claimed by someone, or no longer held here)
   */
  boolean evict(Conversation c) {
    if (!c.tryClaim()) {
      return false;
    }
    if (retire(c)) {
      return true;
    }
    c.release();
    return false;
  }

  /**
   * The owner of {@code c}'s claim retires it: this object can never be claimed again (the next
   * request for the id loads the store's version) and memory no longer holds it.
   *
   * @return whether memory held it
   */
  boolean retire(Conversation c) {
    c.markDeleted();
    return remove(c);
  }

  /** Forgets every conversation (the last instance stopped). */
  void clear() {
    conversations.clear();
    heapBytes.set(0);
  }

  /** @return a live view (weakly consistent iteration) */
  Collection<Conversation> all() {
    return conversations.values();
  }
}
