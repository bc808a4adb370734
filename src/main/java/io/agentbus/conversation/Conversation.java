package io.agentbus.conversation;

import io.agentbus.limits.JsonHeap;
import io.agentbus.model.Usage;
import io.agentbus.store.StoredConversation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The state of one conversation: its settings, the full canonical (Anthropic-shaped)
 * message history, usage totals and whether a turn is running.
 *
 * <p>Any conversation verticle instance may run its next turn: the one that wins
 * {@link #tryClaim()} owns the mutable state (history, usage, turns) until it calls
 * {@link #release()}, and only that context touches it meanwhile. The claim is an atomic flag,
 * so whatever one owner wrote is visible to the next. Readers that do not claim
 * ({@link #toJson()}) see the state as of the last {@link #release()}: volatile snapshots.
 *
 * <p>It is the cached copy of what the conversation store holds: {@link #version()} is the
 * stored version its committed history is at, and {@link #heapBytes()} estimates what that
 * history holds in memory (see {@link JsonHeap}).
 */
public final class Conversation {

  /** The running turn's approvals (a sampling request asks through them), or {@code null}. */
  private TurnApprovals approvals;
  private final String id;
  private final String tenant;
  private final String system;
  private final ToolSelection tools;
  private final List<JsonObject> history = new ArrayList<>();
  private final long createdAtMs;
  private final AtomicBoolean claimed = new AtomicBoolean();
  private volatile boolean deleted;
  private volatile long lastActiveNanos = System.nanoTime();
  private Usage usage = Usage.ZERO;
  /** Usage of the running turn spent outside its model calls (sampling for its tools' servers). */
  private Usage sideUsage = Usage.ZERO;
  private int turns;
  /** The roots its tool calls' servers are offered, or {@code null} for each server's own. */
  private volatile JsonArray roots;
  private volatile List<JsonObject> committedHistory = List.of();
  private volatile Usage committedUsage = Usage.ZERO;
  private volatile int committedTurns;
  private volatile long version;
  private volatile long heapBytes;

  public Conversation(String id, String tenant, String system, ToolSelection tools) {
    this(id, tenant, system, tools, System.currentTimeMillis());
  }

  private Conversation(String id, String tenant, String system, ToolSelection tools, long createdAtMs) {
    this.id = id;
    this.tenant = tenant;
    this.system = system;
    this.tools = tools;
    this.createdAtMs = createdAtMs;
  }

  /** @return the conversation as the store holds it, its committed state published */
  static Conversation fromStored(StoredConversation stored) {
    Conversation c = new Conversation(stored.id(), stored.tenant(), stored.system(),
      ToolSelection.fromJson(stored.tools()), stored.createdAt());
    c.roots = stored.tools() != null && stored.tools().getValue("roots") instanceof JsonArray r ? r : null;
    c.history.addAll(stored.messages());
    c.usage = Usage.fromJson(stored.usage());
    c.turns = (int) Math.min(Integer.MAX_VALUE, stored.version());
    c.version = stored.version();
    c.heapBytes = c.history.stream().mapToLong(JsonHeap::estimate).sum();
    c.committedHistory = List.copyOf(c.history);
    c.committedUsage = c.usage;
    c.committedTurns = c.turns;
    return c;
  }

  /** @return the store version its committed history is at */
  long version() {
    return version;
  }

  /** @return the estimated heap bytes of its committed history */
  long heapBytes() {
    return heapBytes;
  }

  /**
   * The owner committed the turn that grew the history from {@code fromIndex}: records the
   * store's new version and the history's size.
   *
   * @return the bytes the history grew by
   */
  long committed(long newVersion, int fromIndex) {
    long added = 0;
    for (int i = fromIndex; i < history.size(); i++) {
      added += JsonHeap.estimate(history.get(i));
    }
    version = newVersion;
    heapBytes += added;
    return added;
  }

  /** The owner's turn did not commit: the history, usage and turn count go back to the last commit. */
  void rollBack() {
    sideUsage = Usage.ZERO;
    history.subList(committedHistory.size(), history.size()).clear();
    usage = committedUsage;
    turns = committedTurns;
  }

  public String id() {
    return id;
  }

  /** @return the tenant that owns it, or {@code null} */
  public String tenant() {
    return tenant;
  }

  /** @return the system prompt, or {@code null} */
  public String system() {
    return system;
  }

  public ToolSelection tools() {
    return tools;
  }

  /** @return the mutable history; append only */
  List<JsonObject> history() {
    return history;
  }

  public Usage usage() {
    return usage;
  }

  void addUsage(Usage u) {
    usage = usage.plus(u);
  }

  /** Adds usage spent for the running turn outside its model calls (it counts in the turn's usage). */
  /** @return the running turn's approvals, or {@code null} between turns */
  TurnApprovals approvals() {
    return approvals;
  }

  /** Sets the running turn's approvals ({@code null} when it ends). */
  void approvals(TurnApprovals approvals) {
    this.approvals = approvals;
  }

  void addSideUsage(Usage u) {
    usage = usage.plus(u);
    sideUsage = sideUsage.plus(u);
  }

  /** @return the side usage since the last call, which is reset */
  Usage takeSideUsage() {
    Usage u = sideUsage;
    sideUsage = Usage.ZERO;
    return u;
  }

  /** @return the roots its tool calls' servers are offered, or {@code null} for each server's own */
  public JsonArray roots() {
    return roots;
  }

  /** Sets the roots (checked by the caller); @return this */
  Conversation withRoots(JsonArray roots) {
    this.roots = roots;
    return this;
  }

  /** @return what the store keeps of its tool selection and roots */
  JsonObject storedTools() {
    JsonObject stored = tools.toStored();
    return roots == null ? stored : stored.put("roots", roots.copy());
  }

  public int turns() {
    return turns;
  }

  /**
   * Takes ownership of the mutable state (a turn, a delete, an eviction).
   *
   * @return false when someone else holds it, or the conversation was deleted
   */
  boolean tryClaim() {
    if (!claimed.compareAndSet(false, true)) {
      return false;
    }
    if (deleted) {
      claimed.set(false);
      return false;
    }
    return true;
  }

  /** Publishes the owner's changes to readers and gives up ownership. */
  void release() {
    committedHistory = List.copyOf(history);
    committedUsage = usage;
    committedTurns = turns;
    lastActiveNanos = System.nanoTime();
    claimed.set(false);
  }

  /** Marks a claimed conversation deleted or evicted: this object can never be claimed again. */
  void markDeleted() {
    deleted = true;
  }

  void turnStarted() {
    turns++;
    lastActiveNanos = System.nanoTime();
  }

  /** @return whether no turn ran for at least {@code idleMs} (a running turn is never idle) */
  boolean idleFor(long idleMs, long nowNanos) {
    return !claimed.get() && (nowNanos - lastActiveNanos) / 1_000_000L >= idleMs;
  }

  /** @return nanoseconds since its last turn ended (or it was loaded) */
  long idleNanos(long nowNanos) {
    return nowNanos - lastActiveNanos;
  }

  /** @return whether it was deleted or evicted: the registry no longer holds this object */
  boolean gone() {
    return deleted;
  }

  /** @return whether a turn (or another owner) holds the conversation right now */
  public boolean busy() {
    return claimed.get();
  }

  /**
   * @return id, tenant, system, history, usage, turns and busy as JSON, as of the last turn
   *     that ended (safe from any thread)
   */
  public JsonObject toJson() {
    JsonObject json = new JsonObject()
      .put("id", id)
      .put("messages", new JsonArray(new ArrayList<>(committedHistory)))
      .put("usage", committedUsage.toJson())
      .put("turns", committedTurns)
      .put("busy", claimed.get())
      .put("createdAt", createdAtMs)
      .put("tools", tools.toJson());
    if (roots != null) {
      json.put("roots", roots.copy());
    }
    if (tenant != null) {
      json.put("tenant", tenant);
    }
    if (system != null) {
      json.put("system", system);
    }
    return json;
  }
}
