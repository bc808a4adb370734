package io.agentbus.conversation;

import io.agentbus.bus.RetryLaterException;
import io.agentbus.catalog.CatalogSnapshot;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.dispatch.DispatchRequest;
import io.agentbus.dispatch.ToolDispatcher;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelException;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelStreamEvent;
import io.agentbus.model.Provider;
import io.agentbus.model.Usage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one turn of the agent loop, driven by {@code stop_reason} alone: the full history
 * and the tools go with every model request; {@code tool_use} goes to the dispatcher and
 * its one user message of tool_results is appended before the model is called again;
 * {@code pause_turn} continues; everything else ends the turn. Every tool_use in the
 * history always gets its tool_result, whatever ends the turn.
 *
 * <p>The tool set is pinned per turn: the catalog snapshot current when the turn starts is
 * offered at every model call of the turn and names are resolved against it; catalog changes
 * apply from the next turn. Each tool call's budget is what is left of the turn's
 * {@code turnTimeoutMs} (see {@link ConversationOptions}). At {@code maxIterations} the turn
 * ends with one more model call that may not use tools ({@code tool_choice: none}), after a
 * note saying so, so the answer is text that says the turn stopped.
 *
 * <p>A tool call whose approval policy asks for it waits for a person's answer ({@link
 * TurnApprovals}, one per turn, released when the turn ends) while the batch's other calls run.
 */
final class TurnRunner {

  private static final Logger LOG = LoggerFactory.getLogger(TurnRunner.class);
  static final String DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
  static final String DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";
  /**
   * The pace at which a whole (non-streamed) reply is budgeted, in tokens an hour: the one the
   * providers' own SDKs use to refuse non-streaming requests that may outlast their timeout.
   */
  static final long WHOLE_REPLY_TOKENS_PER_HOUR = 128_000;

  private final Vertx vertx;
  private final AgentbusMetrics metrics;
  private final ModelClient model;
  private final ConversationOptions options;
  private final ToolCatalog catalog;
  private final ToolDispatcher dispatcher;
  private final String modelName;
  /** Where the servers' requests during this runner's tool calls go (its conversation instance), or {@code null}. */
  private String callerAddress;
  /** The running turns that asked for an approval: few, touched on this runner's context only. */
  private final Set<TurnApprovals> asking = new HashSet<>();
  private final OfferedTools offeredTools = new OfferedTools();

  TurnRunner(Vertx vertx, ModelClient model, ConversationOptions options, ToolCatalog catalog, ToolDispatcher dispatcher) {
    this.vertx = vertx;
    this.metrics = AgentbusMetrics.get(vertx);
    this.model = model;
    this.options = options;
    this.catalog = catalog;
    this.dispatcher = dispatcher;
    String configured = options.getModel().getModel();
    this.modelName = configured != null ? configured
      : model.provider() == Provider.OPENAI ? DEFAULT_OPENAI_MODEL : DEFAULT_ANTHROPIC_MODEL;
  }

  /** @return the model name its requests use */
  String modelName() {
    return modelName;
  }

  /** Sets where the servers' requests during tool calls (elicitation, sampling) are sent: this instance. */
  void callerAddress(String address) {
    this.callerAddress = address;
  }

  /** One turn's running state. */
  private static final class Turn {
    final Conversation conversation;
    final TurnEvents events;
    /** The tool set of the whole turn. */
    final CatalogSnapshot snapshot;
    /** Whether someone watches the turn's text deltas. */
    final boolean watched;
    final long deadlineNanos;
    final JsonArray toolCalls = new JsonArray();
    final TurnApprovals approvals;
    Usage usage = Usage.ZERO;
    int iteration;
    String lastText = "";

    Turn(Conversation conversation, TurnEvents events, CatalogSnapshot snapshot, boolean watched, long timeoutMs,
         TurnApprovals approvals) {
      this.conversation = conversation;
      this.approvals = approvals;
      this.events = events;
      this.snapshot = snapshot;
      this.watched = watched;
      this.deadlineNanos = System.nanoTime() + timeoutMs * 1_000_000L;
    }

    long msLeft() {
      return Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000L);
    }
  }

  /**
   * Appends the user message and runs the loop; completes with the turn result. The caller
   * publishes the {@code done} event ({@link TurnEvents#done}) once the turn is committed.
   *
   * @param stream whether the turn's text deltas are watched (an SSE client, a bus subscriber):
   *     if not, the model is asked for whole replies, which costs both ends less than a stream
   *     of events, when {@link #wholeReplyFits} (else it streams, the deltas unseen)
   */
  Future<JsonObject> run(Conversation conversation, Object userContent, TurnEvents events, boolean stream) {
    TurnApprovals approvals = new TurnApprovals(vertx, conversation.id(), events, options.getApproval(),
      options.getApprovalTimeoutMs(), asking);
    Turn t = new Turn(conversation, events, catalog.current(), stream, options.getTurnTimeoutMs(), approvals);
    conversation.history().add(new JsonObject().put("role", "user").put("content", userContent));
    conversation.approvals(approvals);
    t.events.turnStarted(conversation.turns());
    return metrics.turn(iterate(t).andThen(ar -> {
      approvals.close();
      if (conversation.approvals() == approvals) {
        conversation.approvals(null);
      }
    }));
  }

  /**
   * Refuses every tool call of this runner's turns that waits for approval, and any later one:
   * Agentbus drains, and nobody's answer can be waited for.
   */
  void refuseApprovals(String why) {
    new ArrayList<>(asking).forEach(a -> a.refuseAll(why));
  }

  /**
   * @return whether a whole reply of {@code maxTokens}, produced at {@link
   *     #WHOLE_REPLY_TOKENS_PER_HOUR}, arrives within {@code requestTimeoutMs}: a non-streamed
   *     call receives no bytes until its reply is complete, so the inactivity timeout bounds the
   *     whole reply (with the defaults, 600 s: up to 21,333 tokens)
   */
  static boolean wholeReplyFits(int maxTokens, long requestTimeoutMs) {
    return maxTokens * 3_600_000L / WHOLE_REPLY_TOKENS_PER_HOUR <= requestTimeoutMs;
  }

  /** @return the {@code done} result of a turn that failed with {@code err} */
  static JsonObject errorResult(Throwable err) {
    JsonObject result = new JsonObject().put("status", "error").put("error", String.valueOf(err.getMessage()));
    if (err instanceof ModelException me && me.retryAfterMs() > 0
      && (me.kind() == ModelException.Kind.RATE_LIMITED || me.kind() == ModelException.Kind.OVERLOADED)) {
      // what the upstream asked for, as the JSON answer's Retry-After says it (whole seconds)
      result.put("retryAfterSeconds", RetryLaterException.seconds(me.retryAfterMs()));
    }
    return result;
  }

  private Future<JsonObject> iterate(Turn t) {
    Conversation c = t.conversation;
    if (t.iteration >= options.getMaxIterations()) {
      return finalAnswer(t);
    }
    long budget = options.getTokenBudget();
    if (budget > 0 && total(c.usage()) >= budget) {
      return Future.succeededFuture(finish(t, "budget_exhausted", null));
    }
    return callModel(t, null).compose(timed -> onModelReply(t, timed.response, timed.durationMs));
  }

  private record Timed(ModelResponse response, long durationMs) {
  }

  /** One model call with the turn's pinned tool set; text deltas become turn events. */
  private Future<Timed> callModel(Turn t, JsonObject toolChoice) {
    Conversation c = t.conversation;
    OfferedTools.Offer offer = offeredTools.offered(c.tools(), t.snapshot.anthropicTools());
    ModelRequest request = new ModelRequest()
      .setModel(modelName)
      .setSystem(c.system())
      .setMessages(options.getHistory().apply(c.history()))
      .setTools(offer.tools())
      .setToolsShared(offer.shared())
      .setMaxTokens(options.getMaxTokens());
    if (toolChoice != null && !request.getTools().isEmpty()) {
      request.setToolChoice(toolChoice);
    }
    long start = System.nanoTime();
    boolean stream = t.watched || !wholeReplyFits(options.getMaxTokens(), options.getModel().getRequestTimeoutMs());
    Future<ModelResponse> reply = stream
      ? model.stream(request, ev -> {
        if (ev instanceof ModelStreamEvent.TextDelta d) {
          t.events.textDelta(d.text());
        }
      })
      : model.send(request);
    metrics.modelCall(model.provider().id(), start, reply);
    return reply.map(resp -> new Timed(resp, (System.nanoTime() - start) / 1_000_000));
  }

  /** Accounts a model reply: iteration, usage, history, the model_call event; @return its stop reason */
  private String record(Turn t, ModelResponse resp, long durationMs) {
    Conversation c = t.conversation;
    t.iteration++;
    Usage u = resp.usage() == null ? Usage.ZERO : resp.usage();
    t.usage = t.usage.plus(u);
    c.addUsage(u);
    c.history().add(resp.toMessage());
    String text = resp.text();
    if (text != null && !text.isEmpty()) {
      t.lastText = text;
    }
    String stop = resp.stopReason() == null ? "" : resp.stopReason();
    t.events.modelCall(t.iteration, stop, durationMs, u);
    return stop;
  }

  /**
   * The turn reached {@code maxIterations}: a note tells the model that no more tools run, and
   * one last call with {@code tool_choice: none} (the tools stay listed, since a request whose
   * history holds tool_use blocks must define them) gets a text answer. Any tool_use it still
   * returns is answered as not executed.
   */
  private Future<JsonObject> finalAnswer(Turn t) {
    int max = options.getMaxIterations();
    addNote(t.conversation, "[Agentbus] This turn reached its limit of " + max + " model calls (maxIterations), so no "
      + "more tools can be run. Answer now in text with what you have so far, and say that you stopped before finishing.");
    return callModel(t, new JsonObject().put("type", "none")).map(timed -> {
      ModelResponse resp = timed.response;
      record(t, resp, timed.durationMs);
      answerUnexecuted(t, resp, "not executed: the turn reached its maxIterations limit");
      String text = resp.text();
      String answer = text != null && !text.isBlank() ? text
        : "I stopped before finishing: this turn reached its limit of " + max + " model calls (maxIterations).";
      return finish(t, "max_iterations", resp, answer);
    });
  }

  /** Adds a text block to the last user message (after its tool_results), or a user message. */
  private static void addNote(Conversation c, String note) {
    List<JsonObject> history = c.history();
    JsonObject text = new JsonObject().put("type", "text").put("text", note);
    int last = history.size() - 1;
    JsonObject lastMessage = last >= 0 ? history.get(last) : null;
    if (lastMessage != null && "user".equals(lastMessage.getString("role")) && lastMessage.getValue("content") instanceof JsonArray content) {
      history.set(last, lastMessage.copy().put("content", content.copy().add(text)));
    } else {
      history.add(new JsonObject().put("role", "user").put("content", new JsonArray().add(text)));
    }
  }

  private Future<JsonObject> onModelReply(Turn t, ModelResponse resp, long durationMs) {
    Conversation c = t.conversation;
    String stop = record(t, resp, durationMs);
    switch (stop) {
      case "tool_use" -> {
        if (resp.toolUses().isEmpty()) {
          return Future.succeededFuture(finish(t, "tool_use_without_calls", resp));
        }
        return dispatch(t, resp).compose(v -> iterate(t));
      }
      case "pause_turn" -> {
        return iterate(t);
      }
      case "end_turn", "stop_sequence", "refusal" -> {
        answerUnexecuted(t, resp, "not executed: the turn ended with stop_reason " + stop);
        return Future.succeededFuture(finish(t, stop, resp));
      }
      case "max_tokens", "model_context_window_exceeded" -> {
        answerUnexecuted(t, resp, "not executed: the reply was cut off (" + stop + ")");
        return Future.succeededFuture(finish(t, stop, resp));
      }
      default -> {
        LOG.warn("[{}] unknown stop_reason '{}': ending the turn", c.id(), stop);
        answerUnexecuted(t, resp, "not executed: unknown stop_reason '" + stop + "'");
        return Future.succeededFuture(finish(t, "unknown_stop_reason", resp));
      }
    }
  }

  private Future<Void> dispatch(Turn t, ModelResponse resp) {
    JsonObject body = new JsonObject()
      .put("provider", model.provider().id())
      .put("catalogVersion", t.snapshot.version())
      .put("budgetMs", t.msLeft())
      .put("content", resp.content())
      .put("eventsAddress", t.events.address())
      .put("eventFields", t.events.fields());
    if (t.conversation.tenant() != null) {
      body.put("tenant", t.conversation.tenant());
    }
    if (callerAddress != null || t.conversation.roots() != null) {
      JsonObject caller = new JsonObject();
      if (callerAddress != null) {
        caller.put("address", callerAddress);
      }
      if (t.conversation.roots() != null) {
        caller.put("roots", t.conversation.roots());
      }
      body.put("caller", caller);
    }
    if (options.getToolTimeoutMs() != null) {
      body.put("timeoutMs", options.getToolTimeoutMs());
    }
    List<JsonObject> uses = resp.toolUses();
    Future<JsonObject> results;
    try {
      // In-process on this context: only the MCP calls themselves cross to the servers' loops.
      results = dispatcher.dispatch(DispatchRequest.parse(body), t.approvals);
    } catch (DispatchRequest.Invalid e) {
      results = Future.failedFuture(e);
    }
    return results
      .recover(err -> {
        LOG.warn("[{}] tool dispatch failed: {}", t.conversation.id(), err.getMessage());
        return Future.succeededFuture(errorResults(uses, "tool dispatch failed: " + err.getMessage()));
      })
      .map(userMessage -> {
        t.conversation.history().add(userMessage);
        recordToolCalls(t, uses, userMessage);
        return null;
      });
  }

  private static void recordToolCalls(Turn t, List<JsonObject> uses, JsonObject userMessage) {
    JsonArray results = userMessage.getJsonArray("content", new JsonArray());
    for (int i = 0; i < uses.size(); i++) {
      JsonObject use = uses.get(i);
      JsonObject result = i < results.size() && results.getValue(i) instanceof JsonObject r ? r : new JsonObject();
      t.toolCalls.add(new JsonObject().put("id", use.getString("id")).put("name", use.getString("name"))
        .put("isError", result.getBoolean("is_error", false)).put("iteration", t.iteration));
    }
  }

  /** Keeps the history valid when a turn ends on a reply that still holds tool_use blocks. */
  private static void answerUnexecuted(Turn t, ModelResponse resp, String reason) {
    List<JsonObject> uses = resp.toolUses();
    if (!uses.isEmpty()) {
      t.conversation.history().add(errorResults(uses, reason));
    }
  }

  static JsonObject errorResults(List<JsonObject> uses, String reason) {
    JsonArray content = new JsonArray();
    for (JsonObject use : uses) {
      content.add(new JsonObject().put("type", "tool_result").put("tool_use_id", use.getString("id"))
        .put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", reason)))
        .put("is_error", true));
    }
    return new JsonObject().put("role", "user").put("content", content);
  }

  private JsonObject finish(Turn t, String status, ModelResponse last) {
    return finish(t, status, last, last != null && last.text() != null ? last.text() : t.lastText);
  }

  private JsonObject finish(Turn t, String status, ModelResponse last, String answer) {
    Conversation c = t.conversation;
    // what the tools' servers spent by sampling during the turn counts as the turn's
    t.usage = t.usage.plus(c.takeSideUsage());
    JsonObject result = new JsonObject()
      .put("conversationId", c.id())
      .put("status", status)
      .put("answer", answer)
      .put("truncated", "max_tokens".equals(status) || "model_context_window_exceeded".equals(status))
      .put("iterations", t.iteration)
      .put("toolCalls", t.toolCalls)
      .put("usage", new JsonObject().put("turn", t.usage.toJson()).put("conversation", c.usage().toJson()));
    if (last != null) {
      result.put("stopReason", last.stopReason());
      if (last.stopSequence() != null) {
        result.put("stopSequence", last.stopSequence());
      }
      if (last.stopDetails() != null) {
        result.put("stopDetails", last.stopDetails());
      }
    }
    t.events.usage(t.usage, c.usage());
    return result;
  }

  private static long total(Usage u) {
    return u.totalInputTokens() + u.outputTokens();
  }
}
