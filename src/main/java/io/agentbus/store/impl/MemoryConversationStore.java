package io.agentbus.store.impl;

import io.agentbus.limits.JsonHeap;
import io.agentbus.store.ConversationPage;
import io.agentbus.store.ConversationStore;
import io.agentbus.store.ConversationSummary;
import io.agentbus.store.NewConversation;
import io.agentbus.store.StoreException;
import io.agentbus.store.StoreException.Kind;
import io.agentbus.store.StoredConversation;
import io.agentbus.store.TurnCommit;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code memory} store: immutable entries in a concurrent map, replaced atomically per
 * conversation (so two writers on one version still conflict). Objects are copied in and out,
 * as a database would. Every future is already complete.
 *
 * <p>It is bounded by the estimated heap its conversations hold ({@link JsonHeap}): an insert
 * or a turn past {@link #DEFAULT_MAX_BYTES} (a quarter of the maximum heap) fails with
 * UNAVAILABLE and says so, instead of running the JVM out of memory.
 */
public final class MemoryConversationStore implements ConversationStore {

  private static final Comparator<Entry> NEWEST_FIRST =
    Comparator.comparingLong(Entry::updatedAt).thenComparing(Entry::id).reversed();

  /** The heap all conversations may hold by default: a quarter of the maximum heap. */
  public static final long DEFAULT_MAX_BYTES = Runtime.getRuntime().maxMemory() / 4;
  /** What a conversation holds before its first message (settings, usage, bookkeeping). */
  private static final long ENTRY_BYTES = 512;

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final long maxBytes;
  private volatile boolean closed;

  /** One conversation; never mutated, replaced whole. */
  private record Entry(String id, String tenant, String title, String system, JsonObject tools, long createdAt,
                       long updatedAt, long version, JsonObject usage, List<JsonObject> messages, long bytes) {
  }

  /** A store bounded by {@link #DEFAULT_MAX_BYTES}. */
  public MemoryConversationStore() {
    this(DEFAULT_MAX_BYTES);
  }

  /** @param maxBytes the estimated heap all conversations may hold */
  public MemoryConversationStore(long maxBytes) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be >= 1");
    }
    this.maxBytes = maxBytes;
  }

  /** Reserves {@code n} bytes, or fails with UNAVAILABLE when they would not fit. */
  private void reserve(long n) {
    if (bytes.addAndGet(n) > maxBytes) {
      bytes.addAndGet(-n);
      throw new StoreException(Kind.UNAVAILABLE, "conversation store memory is full: its conversations hold about "
        + bytes.get() / 1024 + " KiB of its " + maxBytes / 1024 + " KiB; delete conversations, or use the sqlite or "
        + "postgres store");
    }
  }

  @Override
  public String describe() {
    return "memory";
  }

  @Override
  public Future<StoredConversation> insert(NewConversation c) {
    try {
      checkOpen();
      Objects.requireNonNull(c, "'conversation' cannot be null");
      long now = System.currentTimeMillis();
      long size = ENTRY_BYTES + JsonHeap.estimate(c.tools()) + JsonHeap.estimate(c.system());
      Entry entry = new Entry(c.id(), c.tenant(), c.title(), c.system(), c.tools().copy(), now, now, 0,
        new JsonObject(), List.of(), size);
      reserve(size);
      if (entries.putIfAbsent(c.id(), entry) != null) {
        bytes.addAndGet(-size);
        throw new StoreException(Kind.CONFLICT, "conversation " + c.id() + " already exists");
      }
      return Future.succeededFuture(toStored(entry));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  @Override
  public Future<StoredConversation> load(String id) {
    try {
      checkOpen();
      StoreSupport.checkId(id);
      Entry entry = entries.get(id);
      if (entry == null) {
        throw StoreSupport.notFound(id);
      }
      return Future.succeededFuture(toStored(entry));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  @Override
  public Future<TurnCommit> appendTurn(String id, long expectedVersion, List<JsonObject> messages, JsonObject usage) {
    try {
      checkOpen();
      StoreSupport.checkTurn(id, expectedVersion, messages);
      List<JsonObject> copies = new ArrayList<>(messages.size());
      messages.forEach(m -> copies.add(m.copy()));
      long added = copies.stream().mapToLong(JsonHeap::estimate).sum();
      reserve(added);
      Entry[] committed = new Entry[1];
      try {
        entries.compute(id, (key, old) -> {
          if (old == null) {
            throw StoreSupport.notFound(id);
          }
          if (old.version() != expectedVersion) {
            throw StoreSupport.conflict(id, expectedVersion, old.version());
          }
          List<JsonObject> all = new ArrayList<>(old.messages().size() + copies.size());
          all.addAll(old.messages());
          all.addAll(copies);
          String title = old.title() != null ? old.title() : StoreSupport.title(copies);
          long now = Math.max(System.currentTimeMillis(), old.updatedAt());
          committed[0] = new Entry(id, old.tenant(), title, old.system(), old.tools(), old.createdAt(), now,
            old.version() + 1, StoreSupport.mergeUsage(old.usage(), usage), List.copyOf(all), old.bytes() + added);
          return committed[0];
        });
      } catch (RuntimeException e) {
        bytes.addAndGet(-added);
        throw e;
      }
      Entry e = committed[0];
      return Future.succeededFuture(new TurnCommit(e.version(), e.updatedAt(), e.messages().size(), e.usage().copy(), e.title()));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  @Override
  public Future<ConversationPage> list(String tenant, int limit, String afterCursor) {
    try {
      checkOpen();
      StoreSupport.checkLimit(limit);
      StoreSupport.Cursor after = StoreSupport.decodeCursor(afterCursor);
      List<Entry> matching = new ArrayList<>();
      for (Entry e : entries.values()) {
        if (Objects.equals(tenant, e.tenant()) && (after == null || before(e, after))) {
          matching.add(e);
        }
      }
      matching.sort(NEWEST_FIRST);
      List<ConversationSummary> items = new ArrayList<>();
      for (int i = 0; i < Math.min(limit, matching.size()); i++) {
        Entry e = matching.get(i);
        items.add(new ConversationSummary(e.id(), e.tenant(), e.title(), e.createdAt(), e.updatedAt(), e.usage().copy(), e.version()));
      }
      String next = null;
      if (matching.size() > limit) {
        Entry last = matching.get(limit - 1);
        next = StoreSupport.encodeCursor(last.updatedAt(), last.id());
      }
      return Future.succeededFuture(new ConversationPage(items, next));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /** @return whether {@code e} sorts after the cursor (is older, or as old with a smaller id) */
  private static boolean before(Entry e, StoreSupport.Cursor c) {
    return e.updatedAt() < c.updatedAt() || (e.updatedAt() == c.updatedAt() && e.id().compareTo(c.id()) < 0);
  }

  @Override
  public Future<Void> delete(String id) {
    try {
      checkOpen();
      StoreSupport.checkId(id);
      Entry removed = entries.remove(id);
      if (removed == null) {
        throw StoreSupport.notFound(id);
      }
      bytes.addAndGet(-removed.bytes());
      return Future.succeededFuture();
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  @Override
  public Future<JsonObject> usageTotals(String tenant) {
    try {
      checkOpen();
      long count = 0;
      long turns = 0;
      long[] sums = new long[StoreSupport.USAGE_COLUMNS.size()];
      for (Entry e : entries.values()) {
        if (Objects.equals(tenant, e.tenant())) {
          count++;
          turns += e.version();
          for (int i = 0; i < sums.length; i++) {
            sums[i] += StoreSupport.usageLong(e.usage(), StoreSupport.USAGE_COLUMNS.get(i));
          }
        }
      }
      return Future.succeededFuture(StoreSupport.totals(count, turns, sums));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  @Override
  public Future<Void> close() {
    closed = true;
    return Future.succeededFuture();
  }

  private void checkOpen() {
    if (closed) {
      throw new StoreException(Kind.UNAVAILABLE, "conversation store memory is closed");
    }
  }

  private static StoredConversation toStored(Entry e) {
    List<JsonObject> copies = new ArrayList<>(e.messages().size());
    e.messages().forEach(m -> copies.add(m.copy()));
    return new StoredConversation(e.id(), e.tenant(), e.title(), e.system(), e.tools().copy(), e.createdAt(),
      e.updatedAt(), e.version(), e.usage().copy(), List.copyOf(copies));
  }
}
