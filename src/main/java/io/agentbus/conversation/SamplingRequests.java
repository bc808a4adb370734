package io.agentbus.conversation;

import io.agentbus.bus.FailureCodes;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.Usage;
import io.vertx.core.Future;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The {@code sample} action: a server asks, during a tool call of a running turn, for a model
 * completion ({@code sampling/createMessage}). It goes to the conversation's model (this
 * instance's client, the conversation's model name) without tools, with {@code maxTokens} at
 * most the server's limit; at most {@code maxCallsPerTurn} per turn; its tokens count in the
 * turn's and the conversation's usage, and the conversation's {@code tokenBudget} applies.
 * Text content only. Confined to the instance's context (the one that runs the turn).
 */
final class SamplingRequests {

  /** Conversations whose per-turn counts are kept (the least recent are dropped). */
  static final int MAX_TRACKED = 10_000;

  private final ModelClient model;
  private final AgentbusMetrics metrics;
  private final ConversationOptions options;
  private final ConversationRegistry conversations;
  private final String modelName;
  /** Conversation id → {turn number, sampling requests in that turn}. */
  private final Map<String, int[]> counts = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, int[]> eldest) {
      return size() > MAX_TRACKED;
    }
  };

  SamplingRequests(ModelClient model, ConversationOptions options, ConversationRegistry conversations, String modelName,
                   AgentbusMetrics metrics) {
    this.model = model;
    this.metrics = metrics;
    this.options = options;
    this.conversations = conversations;
    this.modelName = modelName;
  }

  /** {@code {conversationId, tenant?, server, params, maxTokens, maxCallsPerTurn, timeoutMs}} → a CreateMessageResult. */
  void handle(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    Object id = body.getValue("conversationId");
    Conversation c = id instanceof String s ? conversations.get(s) : null;
    if (c == null || !c.busy() || !Objects.equals(c.tenant(), body.getValue("tenant"))) {
      msg.fail(FailureCodes.NOT_FOUND, "conversation '" + id + "' is not running a turn here");
      return;
    }
    if (!(body.getValue("params") instanceof JsonObject params)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'params' must be the sampling/createMessage params");
      return;
    }
    int maxCalls = body.getValue("maxCallsPerTurn") instanceof Number n ? n.intValue() : 1;
    int limitTokens = body.getValue("maxTokens") instanceof Number n ? n.intValue() : 1;
    long budget = options.getTokenBudget();
    if (budget > 0 && c.usage().totalInputTokens() + c.usage().outputTokens() >= budget) {
      msg.fail(FailureCodes.QUEUE_FULL, "the conversation's token budget (" + budget + ") is spent");
      return;
    }
    int[] count = counts.computeIfAbsent(c.id(), k -> new int[] {c.turns(), 0});
    if (count[0] != c.turns()) {
      count[0] = c.turns();
      count[1] = 0;
    }
    if (count[1] >= maxCalls) {
      msg.fail(FailureCodes.QUEUE_FULL, "server '" + body.getValue("server") + "' already made " + count[1]
        + " sampling requests in this turn (maxCallsPerTurn " + maxCalls + ")");
      return;
    }
    ModelRequest request;
    try {
      request = toModelRequest(params, limitTokens);
    } catch (IllegalArgumentException e) {
      msg.fail(FailureCodes.BAD_REQUEST, e.getMessage());
      return;
    }
    count[1]++;
    int turn = c.turns();
    long timeoutMs = body.getValue("timeoutMs") instanceof Number n ? Math.max(1, n.longValue()) : options.getTurnTimeoutMs();
    if (!Boolean.TRUE.equals(body.getValue("approval"))) {
      send(msg, c, request, turn, timeoutMs);
      return;
    }
    TurnApprovals approvals = c.approvals();
    if (approvals == null) {
      msg.fail(FailureCodes.NOT_FOUND, "conversation '" + id + "' is not running a turn that can ask for approval");
      return;
    }
    String server = String.valueOf(body.getValue("server"));
    long waitMs = Math.min(timeoutMs, options.getApprovalTimeoutMs());
    long askedAt = System.nanoTime();
    JsonObject arguments = new JsonObject().put("messages", params.getValue("messages")).put("maxTokens", request.getMaxTokens());
    if (request.getSystem() != null) {
      arguments.put("systemPrompt", request.getSystem());
    }
    String name = "sampling by server '" + server + "'";
    JsonObject description = new JsonObject()
      .put("tool_use_id", "sampling_" + server + "_" + turn + "_" + count[1])
      .put("kind", "sampling")
      .put("name", name)
      .put("server", server)
      .put("arguments", arguments)
      .put("description", "Server '" + server + "' asks the conversation's model for a completion during its tool call")
      .put("destructive", false)
      .put("timeoutMs", waitMs)
      .put("expiresAt", System.currentTimeMillis() + waitMs);
    if (body.getValue("toolUseId") instanceof String toolUseId) {
      description.put("for_tool_use_id", toolUseId);
    }
    approvals.ask(description.getString("tool_use_id"), name, description, waitMs).onComplete(ar -> {
      String refusal = ar.succeeded() ? ar.result() : String.valueOf(ar.cause().getMessage());
      if (refusal != null) {
        msg.fail(FailureCodes.FORBIDDEN, refusal);
        return;
      }
      long leftMs = timeoutMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - askedAt);
      if (leftMs < 1) {
        msg.fail(FailureCodes.TIMEOUT, "the tool call that asked ran out of time while the user decided");
        return;
      }
      send(msg, c, request, turn, leftMs);
    });
  }

  /** Sends the request to the model; answers {@code msg} with the CreateMessageResult. */
  private void send(Message<JsonObject> msg, Conversation c, ModelRequest request, int turn, long timeoutMs) {
    long start = System.nanoTime();
    Future<ModelResponse> reply = model.send(request);
    metrics.modelCall(model.provider().id(), start, reply);
    // never outlives the tool call that asked
    reply.timeout(timeoutMs, TimeUnit.MILLISECONDS).onComplete(ar -> {
      if (ar.failed()) {
        msg.fail(FailureCodes.UPSTREAM, "model API error: " + ar.cause().getMessage());
        return;
      }
      Usage u = ar.result().usage() == null ? Usage.ZERO : ar.result().usage();
      // the turn that asked is still the one running here: its usage is this context's to change
      if (c.busy() && c.turns() == turn) {
        c.addSideUsage(u);
      }
      String text = ar.result().text();
      msg.reply(new JsonObject().put("role", "assistant")
        .put("content", new JsonObject().put("type", "text").put("text", text == null ? "" : text))
        .put("model", ar.result().model() != null ? ar.result().model() : modelName)
        .put("stopReason", stopReason(ar.result().stopReason())));
    });
  }

  private ModelRequest toModelRequest(JsonObject params, int limitTokens) {
    if (!(params.getValue("messages") instanceof JsonArray messages) || messages.isEmpty()) {
      throw new IllegalArgumentException("sampling/createMessage needs a non-empty 'messages' array");
    }
    if (!(params.getValue("maxTokens") instanceof Number requested) || requested.intValue() < 1) {
      throw new IllegalArgumentException("sampling/createMessage needs 'maxTokens' >= 1");
    }
    JsonArray converted = new JsonArray();
    for (int i = 0; i < messages.size(); i++) {
      if (!(messages.getValue(i) instanceof JsonObject m) || !("user".equals(m.getValue("role")) || "assistant".equals(m.getValue("role")))) {
        throw new IllegalArgumentException("messages[" + i + "] must be {role: user|assistant, content}");
      }
      Object content = m.getValue("content");
      JsonArray blocks = new JsonArray();
      for (Object block : content instanceof JsonArray a ? a : new JsonArray().add(content)) {
        if (!(block instanceof JsonObject b) || !"text".equals(b.getValue("type")) || !(b.getValue("text") instanceof String t)) {
          throw new IllegalArgumentException("messages[" + i + "]: only text content is supported in sampling");
        }
        blocks.add(new JsonObject().put("type", "text").put("text", t));
      }
      converted.add(new JsonObject().put("role", m.getValue("role")).put("content", blocks));
    }
    ModelRequest request = new ModelRequest().setModel(modelName).setMessages(converted)
      .setMaxTokens(Math.min(requested.intValue(), limitTokens));
    if (params.getValue("systemPrompt") instanceof String system) {
      request.setSystem(system);
    }
    if (params.getValue("temperature") instanceof Number t) {
      request.setTemperature(t.doubleValue());
    }
    return request;
  }

  private static String stopReason(String modelStop) {
    if (modelStop == null) {
      return "endTurn";
    }
    return switch (modelStop) {
      case "max_tokens", "length" -> "maxTokens";
      case "stop_sequence" -> "stopSequence";
      case "end_turn", "stop" -> "endTurn";
      default -> modelStop;
    };
  }
}
