package io.agentbus.conversation;

import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The {@code answer} (and {@code elicitations}) actions of the conversation service: the user's answer to an open
 * elicitation goes to the elicitation's own address, wherever (on whichever instance or node)
 * the turn that opened it runs; its reply or failure comes back as is. An elicitation that is
 * not open (never was, answered, timed out, another tenant's) is 404.
 */
final class ElicitationAnswers {

  /** How long forwarding an answer may take (the check of its content included). */
  static final long TIMEOUT_MS = 10_000;

  private ElicitationAnswers() {
  }

  static void forward(Vertx vertx, Message<JsonObject> msg, JsonObject body) {
    if (!(body.getValue("id") instanceof String id)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'id' must be a string");
      return;
    }
    if (!(body.getValue("elicitationId") instanceof String elicitationId) || elicitationId.isEmpty()
      || elicitationId.length() > 100) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'elicitationId' must be a string (an input_required event's elicitationId)");
      return;
    }
    Object tenant = body.getValue("tenant");
    if (tenant != null && !(tenant instanceof String)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'tenant' must be a string");
      return;
    }
    vertx.eventBus().<JsonObject>request(Addresses.elicitation(elicitationId), body, new DeliveryOptions().setSendTimeout(TIMEOUT_MS))
      .onComplete(ar -> {
        if (ar.succeeded()) {
          msg.reply(ar.result().body());
        } else if (ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
          msg.fail(re.failureCode(), re.getMessage());
        } else if (ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
          msg.fail(FailureCodes.NOT_FOUND, "no open elicitation '" + elicitationId + "' in conversation '" + id + "'");
        } else {
          msg.fail(FailureCodes.UNAVAILABLE, "the elicitation did not take the answer: " + ar.cause().getMessage());
        }
      });
  }

  /**
   * The {@code elicitations} action: a conversation's open elicitations, from the instance that
   * holds them; none when it has none (or is another tenant's).
   */
  static void list(Vertx vertx, Message<JsonObject> msg, JsonObject body) {
    if (!(body.getValue("id") instanceof String id)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'id' must be a string");
      return;
    }
    JsonObject query = new JsonObject().put("tenant", body.getValue("tenant"));
    vertx.eventBus().<JsonObject>request(Addresses.conversationElicitations(id), query, new DeliveryOptions().setSendTimeout(TIMEOUT_MS))
      .onComplete(ar -> {
        if (ar.succeeded()) {
          msg.reply(ar.result().body());
        } else if (ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
          msg.reply(new JsonObject().put("elicitations", new JsonArray()));
        } else {
          msg.fail(FailureCodes.UNAVAILABLE, "the open elicitations could not be listed: " + ar.cause().getMessage());
        }
      });
  }
}
