package io.agentbus.conversation;

import io.agentbus.model.Usage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of one conversation: its settings, the full canonical (Anthropic-shaped)
 * message history, usage totals and whether a turn is running. Owned by one conversation
 * verticle instance and only touched on its context.
 */
public final class Conversation {

  private final String id;
  private final String tenant;
  private final String system;
  private final ToolSelection tools;
  private final List<JsonObject> history = new ArrayList<>();
  private final long createdAtMs = System.currentTimeMillis();
  private long lastActiveNanos = System.nanoTime();
  private Usage usage = Usage.ZERO;
  private int turns;
  private boolean busy;

  public Conversation(String id, String tenant, String system, ToolSelection tools) {
    this.id = id;
    this.tenant = tenant;
    this.system = system;
    this.tools = tools;
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

  public int turns() {
    return turns;
  }

  void turnStarted() {
    busy = true;
    turns++;
    lastActiveNanos = System.nanoTime();
  }

  void turnEnded() {
    busy = false;
    lastActiveNanos = System.nanoTime();
  }

  /** @return whether no turn ran for at least {@code idleMs} (a running turn is never idle) */
  boolean idleFor(long idleMs, long nowNanos) {
    return !busy && (nowNanos - lastActiveNanos) / 1_000_000L >= idleMs;
  }

  public boolean busy() {
    return busy;
  }

  /** @return id, tenant, system, history, usage, turns and busy as JSON */
  public JsonObject toJson() {
    JsonObject json = new JsonObject()
      .put("id", id)
      .put("messages", new JsonArray(new ArrayList<>(history)))
      .put("usage", usage.toJson())
      .put("turns", turns)
      .put("busy", busy)
      .put("createdAt", createdAtMs)
      .put("tools", tools.toJson());
    if (tenant != null) {
      json.put("tenant", tenant);
    }
    if (system != null) {
      json.put("system", system);
    }
    return json;
  }
}
