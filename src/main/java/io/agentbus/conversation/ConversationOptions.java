package io.agentbus.conversation;

import io.agentbus.config.MemoryBudget;
import io.agentbus.model.ModelOptions;
import io.vertx.core.json.JsonObject;
import java.util.Objects;

/**
 * Settings of the conversation service: the model, the loop limits, the history policy and
 * admission limits. JSON shape: {@code {model: {...ModelOptions}, system, maxTokens,
 * maxIterations, tokenBudget, history: {lastTurns, toolResultMaxChars}, stream,
 * toolTimeoutMs, maxConversations, maxActiveTurns, idleTimeoutMs}}.
 */
public class ConversationOptions {

  public static final int DEFAULT_MAX_TOKENS = 4096;
  public static final int DEFAULT_MAX_ITERATIONS = 10;
  /**
   * Conversations one instance keeps: {@link MemoryBudget#turns()}, so that each instance
   * can hold every conversation the heap budget admits, however the shards fill up.
   */
  public static final int DEFAULT_MAX_CONVERSATIONS = MemoryBudget.turns();
  /**
   * Turns one instance runs at once: {@link MemoryBudget#turns()}, the same budget as the
   * HTTP API's admission, so a turn the API admitted is never refused by a full shard.
   */
  public static final int DEFAULT_MAX_ACTIVE_TURNS = MemoryBudget.turns();

  private ModelOptions model = new ModelOptions();
  private String system;
  private int maxTokens = DEFAULT_MAX_TOKENS;
  private int maxIterations = DEFAULT_MAX_ITERATIONS;
  private long tokenBudget;
  private HistoryPolicy history = HistoryPolicy.KEEP_ALL;
  private boolean stream = true;
  private Long toolTimeoutMs;
  private int maxConversations = DEFAULT_MAX_CONVERSATIONS;
  private int maxActiveTurns = DEFAULT_MAX_ACTIVE_TURNS;
  private long idleTimeoutMs;

  public ConversationOptions() {
  }

  public ConversationOptions(ConversationOptions other) {
    this(other.toJson());
  }

  public ConversationOptions(JsonObject json) {
    model = new ModelOptions(json.getJsonObject("model", new JsonObject()));
    system = json.getString("system");
    setMaxTokens(json.getInteger("maxTokens", DEFAULT_MAX_TOKENS));
    setMaxIterations(json.getInteger("maxIterations", DEFAULT_MAX_ITERATIONS));
    setTokenBudget(json.getLong("tokenBudget", 0L));
    history = HistoryPolicy.fromJson(json.getJsonObject("history"));
    stream = json.getBoolean("stream", true);
    toolTimeoutMs = json.getLong("toolTimeoutMs");
    setMaxConversations(json.getInteger("maxConversations", DEFAULT_MAX_CONVERSATIONS));
    setMaxActiveTurns(json.getInteger("maxActiveTurns", DEFAULT_MAX_ACTIVE_TURNS));
    setIdleTimeoutMs(json.getLong("idleTimeoutMs", 0L));
  }

  /** @return the JSON form (holds the model API key: never log it) */
  public JsonObject toJson() {
    JsonObject json = new JsonObject()
      .put("model", model.toJson().put("apiKey", model.getApiKey()))
      .put("maxTokens", maxTokens)
      .put("maxIterations", maxIterations)
      .put("tokenBudget", tokenBudget)
      .put("history", history.toJson())
      .put("stream", stream)
      .put("maxConversations", maxConversations)
      .put("maxActiveTurns", maxActiveTurns)
      .put("idleTimeoutMs", idleTimeoutMs);
    if (system != null) {
      json.put("system", system);
    }
    if (toolTimeoutMs != null) {
      json.put("toolTimeoutMs", toolTimeoutMs);
    }
    return json;
  }

  private static int atLeast(int min, int value, String field) {
    if (value < min) {
      throw new IllegalArgumentException(field + " must be >= " + min);
    }
    return value;
  }

  public ModelOptions getModel() { return model; }

  public ConversationOptions setModel(ModelOptions model) {
    this.model = Objects.requireNonNull(model, "'model' cannot be null");
    return this;
  }

  /** @return the default system prompt for new conversations, or {@code null} */
  public String getSystem() { return system; }

  public ConversationOptions setSystem(String system) {
    this.system = system;
    return this;
  }

  public int getMaxTokens() { return maxTokens; }

  public ConversationOptions setMaxTokens(int maxTokens) {
    this.maxTokens = atLeast(1, maxTokens, "maxTokens");
    return this;
  }

  /** @return model calls allowed per turn before the turn ends with {@code max_iterations} */
  public int getMaxIterations() { return maxIterations; }

  public ConversationOptions setMaxIterations(int maxIterations) {
    this.maxIterations = atLeast(1, maxIterations, "maxIterations");
    return this;
  }

  /** @return total tokens a conversation may spend ({@code 0}: unlimited) */
  public long getTokenBudget() { return tokenBudget; }

  public ConversationOptions setTokenBudget(long tokenBudget) {
    if (tokenBudget < 0) {
      throw new IllegalArgumentException("tokenBudget must be >= 0");
    }
    this.tokenBudget = tokenBudget;
    return this;
  }

  public HistoryPolicy getHistory() { return history; }

  public ConversationOptions setHistory(HistoryPolicy history) {
    this.history = Objects.requireNonNull(history, "'history' cannot be null");
    return this;
  }

  /** @return whether model replies are streamed (text deltas become turn events) */
  public boolean isStream() { return stream; }

  public ConversationOptions setStream(boolean stream) {
    this.stream = stream;
    return this;
  }

  /** @return per tool call timeout, or {@code null} for each server's own */
  public Long getToolTimeoutMs() { return toolTimeoutMs; }

  public ConversationOptions setToolTimeoutMs(Long toolTimeoutMs) {
    if (toolTimeoutMs != null && toolTimeoutMs < 1) {
      throw new IllegalArgumentException("toolTimeoutMs must be >= 1");
    }
    this.toolTimeoutMs = toolTimeoutMs;
    return this;
  }

  /** @return conversations one verticle instance keeps before refusing {@code create} */
  public int getMaxConversations() { return maxConversations; }

  public ConversationOptions setMaxConversations(int maxConversations) {
    this.maxConversations = atLeast(1, maxConversations, "maxConversations");
    return this;
  }

  /** @return turns one verticle instance runs at once before refusing {@code send} */
  public int getMaxActiveTurns() { return maxActiveTurns; }

  public ConversationOptions setMaxActiveTurns(int maxActiveTurns) {
    this.maxActiveTurns = atLeast(1, maxActiveTurns, "maxActiveTurns");
    return this;
  }

  /** @return a conversation with no turn for this long is forgotten ({@code 0}: never) */
  public long getIdleTimeoutMs() { return idleTimeoutMs; }

  public ConversationOptions setIdleTimeoutMs(long idleTimeoutMs) {
    if (idleTimeoutMs < 0) {
      throw new IllegalArgumentException("idleTimeoutMs must be >= 0");
    }
    this.idleTimeoutMs = idleTimeoutMs;
    return this;
  }
}
