package io.agentbus.conversation;

import io.agentbus.bus.Addresses;
import io.agentbus.model.Usage;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;

/**
 * Publishes one conversation's turn events on {@code agentbus.conversation.<id>.events}.
 * Every event is {@code {type, conversationId, ...}}; types: {@code turn_started},
 * {@code text_delta {text}}, {@code model_call {iteration, stopReason, durationMs, usage}},
 * {@code tool_call_started} / {@code tool_call_finished} (published by the dispatcher on the
 * same address), {@code tool_call_progress {tool_use_id, name, server, tool, progress, total?,
 * message?}} (published by the tool's server verticle, at most one per call every 200 ms),
 * {@code approval_required {tool_use_id, name, server, tool, arguments, ...}} and
 * {@code approval_resolved {tool_use_id, name, approved, reason?, decidedBy}} (see
 * {@link TurnApprovals}), {@code usage {turn, conversation}} and {@code done {result}}.
 *
 * <p>When the sender of the turn gave a {@code requestId}, every event of that turn carries
 * it, so a subscriber can tell its own turn from another caller's on the same conversation.
 */
final class TurnEvents {

  private final EventBus bus;
  private final String conversationId;
  private final String requestId;
  private final String address;

  TurnEvents(EventBus bus, String conversationId, String requestId) {
    this.bus = bus;
    this.conversationId = conversationId;
    this.requestId = requestId;
    this.address = Addresses.conversationEvents(conversationId);
  }

  String address() {
    return address;
  }

  /** @return the fields every event of the turn carries (the dispatcher copies them into its own) */
  JsonObject fields() {
    JsonObject fields = new JsonObject().put("conversationId", conversationId);
    if (requestId != null) {
      fields.put("requestId", requestId);
    }
    return fields;
  }

  private void publish(String type, JsonObject body) {
    body.put("type", type).put("conversationId", conversationId);
    if (requestId != null) {
      body.put("requestId", requestId);
    }
    bus.publish(address, body);
  }

  void turnStarted(int turn) {
    publish("turn_started", new JsonObject().put("turn", turn));
  }

  void textDelta(String text) {
    publish("text_delta", new JsonObject().put("text", text));
  }

  void modelCall(int iteration, String stopReason, long durationMs, Usage usage) {
    publish("model_call", new JsonObject().put("iteration", iteration).put("stopReason", stopReason)
      .put("durationMs", durationMs).put("usage", usage.toJson()));
  }

  void usage(Usage turn, Usage conversation) {
    publish("usage", new JsonObject().put("turn", turn.toJson()).put("conversation", conversation.toJson()));
  }

  /** A tool call waits for approval: {@code approval} is its {@code TurnApprovals} description. */
  void approvalRequired(JsonObject approval) {
    publish("approval_required", approval);
  }

  /** A tool call's approval was decided: {@code {tool_use_id, name, approved, reason?, decidedBy}}. */
  void approvalResolved(JsonObject decision) {
    publish("approval_resolved", decision);
  }

  void done(JsonObject result) {
    publish("done", new JsonObject().put("result", result));
  }
}
