package io.agentbus.conversation;

import io.agentbus.limits.MemoryBudget;
import io.agentbus.mcp.ToolApproval;
import io.agentbus.model.ModelOptions;
import io.agentbus.options.OptionsJson;
import io.vertx.core.json.JsonObject;
import java.util.Objects;

/**
 * Settings of the conversation service: the model, the loop limits, the history policy and
 * admission limits. JSON shape: {@code {model: {...ModelOptions}, system, maxTokens,
 * maxIterations, tokenBudget, history: {lastTurns, toolResultMaxChars}, stream,
 * toolTimeoutMs, turnTimeoutMs, maxConversations, maxActiveTurns, idleTimeoutMs, memoryBytes,
 * maxHistoryBytes, approval, approvalTimeoutMs}}.
 *
 * <p><b>Memory.</b> The conversations in memory are a cache in front of the conversation
 * store, bounded by count ({@code maxConversations}) and by the estimated heap bytes of their
 * histories ({@code memoryBytes}); idle ones ({@code idleTimeoutMs}) and, past a bound, the
 * least recently active ones leave memory and are loaded again on their next request. One
 * conversation's history may not grow past {@code maxHistoryBytes}: a message that would take
 * it there is refused (413). The defaults derive from the maximum heap.
 *
 * <p><b>Tool call budgets.</b> Each tool call of a turn gets one deadline, carried from the turn
 * to the MCP request: its hard limit is the least of what is left of the turn
 * ({@code turnTimeoutMs} from the turn's start) and the server's {@code maxTotalTimeoutMs};
 * its timeout ({@code toolTimeoutMs}, else the server's {@code timeoutMs}) is restarted by the
 * server's progress notifications, never past the hard limit. Waiting for the server and for a
 * call slot spends the same budget.
 *
 * <p><b>Approvals.</b> {@code approval} ({@code never}, {@code destructive} or {@code always}) is
 * the policy of tools whose server and own entry in {@code mcp.json} set none. A call that waits
 * for approval waits at most {@code approvalTimeoutMs}, and never past what is left of the turn;
 * the wait is spent from the call's budget.
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
  /** Share of the maximum heap the cached conversations' histories may hold. */
  public static final double MEMORY_HEAP_SHARE = 0.25;
  /** Heap bytes the cached conversations' histories may hold: a quarter of the maximum heap. */
  public static final long DEFAULT_MEMORY_BYTES = (long) (Runtime.getRuntime().maxMemory() * MEMORY_HEAP_SHARE);
  /** Upper bound of the default {@link #DEFAULT_MAX_HISTORY_BYTES}. */
  public static final long MAX_HISTORY_BYTES_CAP = 16L * 1024 * 1024;
  /**
   * Heap bytes one conversation's history may hold: a sixteenth of {@link #DEFAULT_MEMORY_BYTES},
   * at most 16 MiB (about four times what a 1M-token context window takes as text).
   */
  public static final long DEFAULT_MAX_HISTORY_BYTES = Math.max(64 * 1024, Math.min(MAX_HISTORY_BYTES_CAP, DEFAULT_MEMORY_BYTES / 16));
  /** A conversation with no request for this long leaves memory (it stays in the store): 10 minutes. */
  public static final long DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000L;
  /**
   * How long a sender waits for a whole turn (model calls and tools) on the conversation
   * service: the send timeout of {@code Agentbus.send} and of the HTTP API.
   */
  public static final long SEND_TIMEOUT_MS = 30 * 60_000L;
  /**
   * Time a turn's tool calls may run, from the turn's start: {@link #SEND_TIMEOUT_MS}
   * (how long {@code Agentbus.send} and the HTTP API wait for a turn) less one minute, so that
   * the model can still answer after the last tool call ran out of time.
   */
  public static final long DEFAULT_TURN_TIMEOUT_MS = SEND_TIMEOUT_MS - 60_000L;
  /** How long a tool call waits for a person's approval by default: 5 minutes (never past the turn's deadline). */
  public static final long DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000L;

  private ModelOptions model = new ModelOptions();
  private String system;
  private int maxTokens = DEFAULT_MAX_TOKENS;
  private int maxIterations = DEFAULT_MAX_ITERATIONS;
  private long tokenBudget;
  private HistoryPolicy history = HistoryPolicy.KEEP_ALL;
  private boolean stream = true;
  private Long toolTimeoutMs;
  private long turnTimeoutMs = DEFAULT_TURN_TIMEOUT_MS;
  private int maxConversations = DEFAULT_MAX_CONVERSATIONS;
  private int maxActiveTurns = DEFAULT_MAX_ACTIVE_TURNS;
  private long idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  private long memoryBytes = DEFAULT_MEMORY_BYTES;
  private long maxHistoryBytes = DEFAULT_MAX_HISTORY_BYTES;
  private ToolApproval approval = ToolApproval.NEVER;
  private long approvalTimeoutMs = DEFAULT_APPROVAL_TIMEOUT_MS;

  public ConversationOptions() {
  }

  public ConversationOptions(ConversationOptions other) {
    this(other.toJson());
  }

  /**
   * Reads the JSON shape of the class comment; absent fields keep their defaults.
   *
   * @throws IllegalArgumentException naming the field when a value has the wrong type or lies
   *     outside the range its setter accepts
   */
  public ConversationOptions(JsonObject json) {
    JsonObject m = OptionsJson.object(json, "model");
    model = new ModelOptions(m == null ? new JsonObject() : m);
    system = OptionsJson.string(json, "system", null);
    setMaxTokens(OptionsJson.intField(json, "maxTokens", 1, Integer.MAX_VALUE, DEFAULT_MAX_TOKENS));
    setMaxIterations(OptionsJson.intField(json, "maxIterations", 1, Integer.MAX_VALUE, DEFAULT_MAX_ITERATIONS));
    setTokenBudget(OptionsJson.longField(json, "tokenBudget", 0, 0L));
    JsonObject h = OptionsJson.object(json, "history");
    history = h == null ? HistoryPolicy.KEEP_ALL
      : new HistoryPolicy(OptionsJson.intField(h, "lastTurns", 0, Integer.MAX_VALUE, 0),
        OptionsJson.intField(h, "toolResultMaxChars", 0, Integer.MAX_VALUE, 0));
    stream = OptionsJson.bool(json, "stream", true);
    setToolTimeoutMs(OptionsJson.integer(json, "toolTimeoutMs", 1, Long.MAX_VALUE));
    setTurnTimeoutMs(OptionsJson.longField(json, "turnTimeoutMs", 1, DEFAULT_TURN_TIMEOUT_MS));
    setMaxConversations(OptionsJson.intField(json, "maxConversations", 1, Integer.MAX_VALUE, DEFAULT_MAX_CONVERSATIONS));
    setMaxActiveTurns(OptionsJson.intField(json, "maxActiveTurns", 1, Integer.MAX_VALUE, DEFAULT_MAX_ACTIVE_TURNS));
    setIdleTimeoutMs(OptionsJson.longField(json, "idleTimeoutMs", 0, DEFAULT_IDLE_TIMEOUT_MS));
    setMemoryBytes(OptionsJson.longField(json, "memoryBytes", 1, DEFAULT_MEMORY_BYTES));
    setMaxHistoryBytes(OptionsJson.longField(json, "maxHistoryBytes", 1, DEFAULT_MAX_HISTORY_BYTES));
    String word = OptionsJson.string(json, "approval", ToolApproval.NEVER.id());
    ToolApproval a = ToolApproval.find(word);
    if (a == null) {
      throw new IllegalArgumentException("field 'approval' must be " + ToolApproval.CHOICES + " (was \"" + word + "\")");
    }
    setApproval(a);
    setApprovalTimeoutMs(OptionsJson.longField(json, "approvalTimeoutMs", 1, DEFAULT_APPROVAL_TIMEOUT_MS));
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
      .put("turnTimeoutMs", turnTimeoutMs)
      .put("maxConversations", maxConversations)
      .put("maxActiveTurns", maxActiveTurns)
      .put("idleTimeoutMs", idleTimeoutMs)
      .put("memoryBytes", memoryBytes)
      .put("maxHistoryBytes", maxHistoryBytes)
      .put("approval", approval.id())
      .put("approvalTimeoutMs", approvalTimeoutMs);
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

  /**
   * @return per tool call timeout (restarted by the server's progress, up to the call's hard
   *     limit), or {@code null} for each server's own
   */
  public Long getToolTimeoutMs() { return toolTimeoutMs; }

  public ConversationOptions setToolTimeoutMs(Long toolTimeoutMs) {
    if (toolTimeoutMs != null && toolTimeoutMs < 1) {
      throw new IllegalArgumentException("toolTimeoutMs must be >= 1");
    }
    this.toolTimeoutMs = toolTimeoutMs;
    return this;
  }

  /** @return how long a turn's tool calls may run, from the turn's start (caps every call's budget) */
  /** @return the approval policy of tools whose server and own entry set none */
  public ToolApproval getApproval() { return approval; }

  /** Sets the approval policy of tools whose server and own entry set none. */
  public ConversationOptions setApproval(ToolApproval approval) {
    this.approval = Objects.requireNonNull(approval, "'approval' cannot be null");
    return this;
  }

  /** @return how long a call waits for approval at most (never past the turn's deadline) */
  public long getApprovalTimeoutMs() { return approvalTimeoutMs; }

  /** Sets how long a call waits for approval at most (>= 1 ms). */
  public ConversationOptions setApprovalTimeoutMs(long approvalTimeoutMs) {
    if (approvalTimeoutMs < 1) {
      throw new IllegalArgumentException("approvalTimeoutMs must be >= 1");
    }
    this.approvalTimeoutMs = approvalTimeoutMs;
    return this;
  }

  public long getTurnTimeoutMs() { return turnTimeoutMs; }

  public ConversationOptions setTurnTimeoutMs(long turnTimeoutMs) {
    if (turnTimeoutMs < 1) {
      throw new IllegalArgumentException("turnTimeoutMs must be >= 1");
    }
    this.turnTimeoutMs = turnTimeoutMs;
    return this;
  }

  /** @return conversations kept in memory; past it the least recently active ones leave memory */
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

  /**
   * @return a conversation with no request for this long leaves memory ({@code 0}: only when
   *     memory is needed); it stays in the store and is loaded again on its next request
   */
  public long getIdleTimeoutMs() { return idleTimeoutMs; }

  public ConversationOptions setIdleTimeoutMs(long idleTimeoutMs) {
    if (idleTimeoutMs < 0) {
      throw new IllegalArgumentException("idleTimeoutMs must be >= 0");
    }
    this.idleTimeoutMs = idleTimeoutMs;
    return this;
  }

  /** @return heap bytes (estimated) the histories of the conversations in memory may hold */
  public long getMemoryBytes() { return memoryBytes; }

  public ConversationOptions setMemoryBytes(long memoryBytes) {
    if (memoryBytes < 1) {
      throw new IllegalArgumentException("memoryBytes must be >= 1");
    }
    this.memoryBytes = memoryBytes;
    return this;
  }

  /** @return heap bytes (estimated) one conversation's history may hold; a message past it is refused (413) */
  public long getMaxHistoryBytes() { return maxHistoryBytes; }

  public ConversationOptions setMaxHistoryBytes(long maxHistoryBytes) {
    if (maxHistoryBytes < 1) {
      throw new IllegalArgumentException("maxHistoryBytes must be >= 1");
    }
    this.maxHistoryBytes = maxHistoryBytes;
    return this;
  }
}
