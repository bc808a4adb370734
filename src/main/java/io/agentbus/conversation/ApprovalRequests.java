package io.agentbus.conversation;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The conversation service's {@link Actions#APPROVE} and {@link Actions#APPROVALS}: checks the
 * body and the caller's tenant (another tenant's conversation is 404, as everywhere), then asks
 * the turn that waits ({@link TurnApprovals}, on whichever instance or node runs it). With no
 * turn waiting, {@code approvals} is an empty list and {@code approve} is 404, or 409 for a
 * tool_use of an ended turn.
 */
final class ApprovalRequests {

  /** Longest tool_use id accepted. */
  static final int MAX_ID_CHARS = 256;
  /** Longest reason accepted (it goes into the history as the tool_result). */
  static final int MAX_REASON_CHARS = 2_000;
  /** How long the turn's answer is waited for (it answers at once). */
  static final long ANSWER_TIMEOUT_MS = 10_000;

  private final Vertx vertx;
  private final BiFunction<String, JsonObject, Future<Conversation>> resolve;

  /** @param resolve finds a conversation for a request body, checking its tenant */
  ApprovalRequests(Vertx vertx, BiFunction<String, JsonObject, Future<Conversation>> resolve) {
    this.vertx = vertx;
    this.resolve = resolve;
  }

  void forward(Message<JsonObject> msg, String action, String id, JsonObject body) {
    JsonObject forwarded = new JsonObject();
    if (Actions.APPROVE.equals(action)) {
      String problem = problem(body);
      if (problem != null) {
        msg.fail(FailureCodes.BAD_REQUEST, problem);
        return;
      }
      forwarded.put("toolUseId", body.getString("toolUseId")).put("approve", body.getBoolean("approve"));
      if (body.getValue("reason") != null) {
        forwarded.put("reason", body.getString("reason"));
      }
    }
    resolve.apply(id, body).onComplete(ar -> {
      if (ar.failed()) {
        Refusal.reply(msg, ar.cause());
        return;
      }
      DeliveryOptions delivery = new DeliveryOptions().addHeader(Actions.HEADER, action).setSendTimeout(ANSWER_TIMEOUT_MS);
      vertx.eventBus().<JsonObject>request(Addresses.conversationApprovals(id), forwarded, delivery).onComplete(reply -> {
        if (reply.succeeded()) {
          msg.reply(reply.result().body());
        } else if (reply.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
          noneWaiting(msg, action, ar.result(), forwarded.getString("toolUseId"));
        } else if (reply.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
          msg.fail(re.failureCode(), re.getMessage());
        } else {
          msg.fail(FailureCodes.UNAVAILABLE, "the turn of conversation '" + id + "' did not answer ("
            + reply.cause().getMessage() + "); retry");
        }
      });
    });
  }

  /** @return what is wrong with an {@code approve} body, or {@code null} */
  static String problem(JsonObject body) {
    if (!(body.getValue("toolUseId") instanceof String toolUseId) || toolUseId.isEmpty() || toolUseId.length() > MAX_ID_CHARS) {
      return "field 'toolUseId' must be a tool_use id (a string of 1-" + MAX_ID_CHARS + " characters)";
    }
    if (!(body.getValue("approve") instanceof Boolean)) {
      return "field 'approve' must be true or false";
    }
    Object reason = body.getValue("reason");
    if (reason != null && !(reason instanceof String r && r.length() <= MAX_REASON_CHARS)) {
      return "field 'reason' must be a string of at most " + MAX_REASON_CHARS + " characters";
    }
    return null;
  }

  private static void noneWaiting(Message<JsonObject> msg, String action, Conversation c, String toolUseId) {
    if (Actions.APPROVALS.equals(action)) {
      msg.reply(new JsonObject().put("conversationId", c.id()).put("approvals", new JsonArray()));
      return;
    }
    // only an idle conversation's history is read here: a running turn appends to it on its own context
    if (!c.busy() && holdsToolUse(c.history(), toolUseId)) {
      msg.fail(FailureCodes.CONFLICT, "tool_use '" + toolUseId + "' of conversation '" + c.id()
        + "' no longer waits for approval: its turn has ended");
      return;
    }
    msg.fail(FailureCodes.NOT_FOUND, "no tool call '" + toolUseId + "' waits for approval in conversation '" + c.id() + "'");
  }

  private static boolean holdsToolUse(List<JsonObject> history, String toolUseId) {
    for (int i = history.size() - 1; i >= 0; i--) {
      JsonObject m = history.get(i);
      if ("assistant".equals(m.getValue("role")) && m.getValue("content") instanceof JsonArray blocks) {
        for (Object b : blocks) {
          if (b instanceof JsonObject block && "tool_use".equals(block.getValue("type")) && toolUseId.equals(block.getValue("id"))) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
