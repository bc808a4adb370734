package io.agentbus.store.impl;

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

/**
 * The {@code memory} store: immutable entries in a concurrent map, replaced atomically per
 * conversation (so two writers on one version still conflict). Objects are copied in and out,
 * as a database would. Every future is already complete.
 */
public final class MemoryConversationStore implements ConversationStore {

  private static final Comparator<Entry> NEWEST_FIRST =
    Comparator.comparingLong(Entry::updatedAt).thenComparing(Entry::id).reversed();

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** One conversation; never mutated, replaced whole. */
  private record Entry(String id, String tenant, String title, String system, JsonObject tools, long createdAt,
                       long updatedAt, long version, JsonObject usage, List<JsonObject> messages) {
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
      Entry entry = new Entry(c.id(), c.tenant(), c.title(), c.system(), c.tools().copy(), now, now, 0,
        new JsonObject(), List.of());
      if (entries.putIfAbsent(c.id(), entry) != null) {
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
      Entry[] committed = new Entry[1];
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
          old.version() + 1, StoreSupport.mergeUsage(old.usage(), usage), List.copyOf(all));
        return committed[0];
      });
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
      if (entries.remove(id) == null) {
        throw StoreSupport.notFound(id);
      }
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
