package io.agentbus.conversation;

import io.agentbus.catalog.CatalogSnapshot;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.dispatch.DispatchRequest;
import io.agentbus.dispatch.ToolDispatcher;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelStreamEvent;
import io.agentbus.model.Usage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one turn of the agent loop, driven by {@code stop_reason} alone: the full history
 * and the tools go with every model request; {@code tool_use} goes to the dispatcher and
 * its one user message of tool_results is appended before the model is called again;
 * {@code pause_turn} continues; everything else ends the turn. Every tool_use in the
 * history always gets its tool_result, whatever ends the turn.
 */
final class TurnRunner {

  private static final Logger LOG = LoggerFactory.getLogger(TurnRunner.class);
  static final String DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
  static final String DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";

  private final Vertx vertx;
  private final ModelClient model;
  private final ConversationOptions options;
  private final ToolCatalog catalog;
  private final ToolDispatcher dispatcher;
  private final String modelName;

  TurnRunner(Vertx vertx, ModelClient model, ConversationOptions options, ToolCatalog catalog, ToolDispatcher dispatcher) {
    this.vertx = vertx;
    this.model = model;
    this.options = options;
    this.catalog = catalog;
    this.dispatcher = dispatcher;
    String configured = options.getModel().getModel();
    this.modelName = configured != null ? configured
      : "openai".equals(model.provider()) ? DEFAULT_OPENAI_MODEL : DEFAULT_ANTHROPIC_MODEL;
  }

  /** One turn's running state. */
  private static final class Turn {
    final Conversation conversation;
    final TurnEvents events;
    final JsonArray toolCalls = new JsonArray();
    Usage usage = Usage.ZERO;
    int iteration;
    String lastText = "";

    Turn(Conversation conversation, TurnEvents events) {
      this.conversation = conversation;
      this.events = events;
    }
  }

  /** Appends the user message and runs the loop; completes with the turn result. */
  Future<JsonObject> run(Conversation conversation, Object userContent) {
    Turn t = new Turn(conversation, new TurnEvents(vertx.eventBus(), conversation.id()));
    conversation.history().add(new JsonObject().put("role", "user").put("content", userContent));
    t.events.turnStarted(conversation.turns());
    return AgentbusMetrics.get(vertx).turn(iterate(t)).onFailure(err -> {
      t.events.done(new JsonObject().put("status", "error").put("error", String.valueOf(err.getMessage())));
    });
  }

  private Future<JsonObject> iterate(Turn t) {
    Conversation c = t.conversation;
    if (t.iteration >= options.getMaxIterations()) {
      return Future.succeededFuture(finish(t, "max_iterations", null));
    }
    long budget = options.getTokenBudget();
    if (budget > 0 && total(c.usage()) >= budget) {
      return Future.succeededFuture(finish(t, "budget_exhausted", null));
    }
    CatalogSnapshot snapshot = catalog.current();
    ModelRequest request = new ModelRequest()
      .setModel(modelName)
      .setSystem(c.system())
      .setMessages(options.getHistory().apply(c.history()))
      .setTools(c.tools().select(snapshot.anthropicTools()))
      .setMaxTokens(options.getMaxTokens());
    long start = System.nanoTime();
    Future<ModelResponse> reply = options.isStream()
      ? model.stream(request, ev -> {
        if (ev instanceof ModelStreamEvent.TextDelta d) {
          t.events.textDelta(d.text());
        }
      })
      : model.send(request);
    AgentbusMetrics.get(vertx).modelCall(model.provider(), start, reply);
    return reply.compose(resp -> onModelReply(t, resp, snapshot, (System.nanoTime() - start) / 1_000_000));
  }

  private Future<JsonObject> onModelReply(Turn t, ModelResponse resp, CatalogSnapshot snapshot, long durationMs) {
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
    switch (stop) {
      case "tool_use" -> {
        if (resp.toolUses().isEmpty()) {
          return Future.succeededFuture(finish(t, "tool_use_without_calls", resp));
        }
        return dispatch(t, resp, snapshot).compose(v -> iterate(t));
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

  private Future<Void> dispatch(Turn t, ModelResponse resp, CatalogSnapshot snapshot) {
    JsonObject body = new JsonObject()
      .put("provider", model.provider())
      .put("catalogVersion", snapshot.version())
      .put("content", resp.content())
      .put("eventsAddress", t.events.address())
      .put("eventFields", new JsonObject().put("conversationId", t.conversation.id()));
    if (options.getToolTimeoutMs() != null) {
      body.put("timeoutMs", options.getToolTimeoutMs());
    }
    List<JsonObject> uses = resp.toolUses();
    Future<JsonObject> results;
    try {
      // In-process on this context: only the MCP calls themselves cross to the servers' loops.
      results = dispatcher.dispatch(DispatchRequest.parse(body));
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
    Conversation c = t.conversation;
    JsonObject result = new JsonObject()
      .put("conversationId", c.id())
      .put("status", status)
      .put("answer", last != null && last.text() != null ? last.text() : t.lastText)
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
    t.events.done(result);
    return result;
  }

  private static long total(Usage u) {
    return u.totalInputTokens() + u.outputTokens();
  }
}
