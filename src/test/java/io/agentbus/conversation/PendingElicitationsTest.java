package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The conversation side of elicitations, over the bus: bounded per conversation, an answer
 * checked under a hostile {@code pattern} without hanging, a deadline that cancels, and every
 * open one cancelled when the instance stops.
 */
@ExtendWith(VertxExtension.class)
class PendingElicitationsTest {

  private static final String INSTANCE = "test.instance";

  private static JsonObject elicit(String conversation, JsonObject schema, long timeoutMs) {
    return new JsonObject().put("conversationId", conversation).put("tenant", "t").put("server", "s").put("message", "m")
      .put("requestedSchema", schema).put("timeoutMs", timeoutMs);
  }

  private static JsonObject schema(JsonObject property) {
    return new JsonObject().put("type", "object").put("properties", new JsonObject().put("x", property));
  }

  /** Deploys the pending set on an event loop, behind {@link #INSTANCE}. */
  private static Future<PendingElicitations> serve(Vertx vertx) {
    Promise<PendingElicitations> p = Promise.promise();
    vertx.runOnContext(v -> {
      PendingElicitations pending = new PendingElicitations(vertx);
      vertx.eventBus().<JsonObject>consumer(INSTANCE, pending::open).completion().map(pending).onComplete(p);
    });
    return p.future();
  }

  private static Future<Message<JsonObject>> ask(Vertx vertx, JsonObject body) {
    return vertx.eventBus().request(INSTANCE, body, new DeliveryOptions().addHeader(Actions.HEADER, Actions.ELICIT).setSendTimeout(20_000));
  }

  /** @return the first {@code input_required} of the conversation, once subscribed */
  private static Future<Future<JsonObject>> required(Vertx vertx, String conversation, String type) {
    Promise<JsonObject> seen = Promise.promise();
    var c = vertx.eventBus().<JsonObject>consumer(Addresses.conversationEvents(conversation), m -> {
      if (type.equals(m.body().getString("type"))) {
        seen.tryComplete(m.body());
      }
    });
    return c.completion().map(v -> seen.future());
  }

  @Test
  void aConversationHoldsAtMostItsShareOpen(Vertx vertx, VertxTestContext ctx) {
    JsonObject s = schema(new JsonObject().put("type", "string"));
    serve(vertx).compose(pending -> {
      List<Future<Message<JsonObject>>> open = new ArrayList<>();
      for (int i = 0; i < PendingElicitations.MAX_PER_CONVERSATION; i++) {
        open.add(ask(vertx, elicit("c1", s, 10_000)));
      }
      return ask(vertx, elicit("c1", s, 10_000)).map(extra -> {
        ctx.verify(() -> {
          assertEquals("decline", extra.body().getString("action"));
          assertEquals(PendingElicitations.MAX_PER_CONVERSATION, pending.size());
        });
        pending.closeAll();
        return open;
      }).compose(Future::all).map(all -> {
        ctx.verify(() -> open.forEach(f -> assertEquals("cancel", f.result().body().getString("action"))));
        return null;
      });
    }).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aHostilePatternCannotHoldTheAnswerCheck(Vertx vertx, VertxTestContext ctx) {
    JsonObject s = schema(new JsonObject().put("type", "string").put("pattern", "^(a+)+$"));
    serve(vertx).compose(pending -> required(vertx, "c2", "input_required").compose(event -> {
      Future<Message<JsonObject>> server = ask(vertx, elicit("c2", s, 10_000));
      return event.compose(e -> vertx.eventBus().<JsonObject>request(Addresses.elicitation(e.getString("elicitationId")),
          new JsonObject().put("id", "c2").put("tenant", "t").put("action", "accept")
            .put("content", new JsonObject().put("x", "a".repeat(40) + "!")))
        .transform(ar -> {
          ctx.verify(() -> {
            assertTrue(ar.failed(), "a mismatching answer is refused");
            ReplyException re = (ReplyException) ar.cause();
            assertEquals(400, re.failureCode());
            assertTrue(re.getMessage().startsWith(PendingElicitations.INVALID), re.getMessage());
            assertEquals(1, pending.size(), "it stays open");
          });
          // another tenant cannot answer it
          return vertx.eventBus().<JsonObject>request(Addresses.elicitation(e.getString("elicitationId")),
            new JsonObject().put("id", "c2").put("tenant", "u").put("action", "decline"));
        })
        .transform(other -> {
          ctx.verify(() -> assertEquals(404, ((ReplyException) other.cause()).failureCode()));
          return vertx.eventBus().<JsonObject>request(Addresses.elicitation(e.getString("elicitationId")),
            new JsonObject().put("id", "c2").put("tenant", "t").put("action", "accept").put("content", new JsonObject().put("x", "aaa")));
        }))
        .compose(ok -> server).map(answered -> {
          ctx.verify(() -> assertEquals(new JsonObject().put("action", "accept").put("content", new JsonObject().put("x", "aaa")),
            answered.body()));
          return null;
        });
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void noAnswerBeforeTheDeadlineCancels(Vertx vertx, VertxTestContext ctx) {
    serve(vertx).compose(pending -> required(vertx, "c3", "input_resolved").compose(resolved ->
      ask(vertx, elicit("c3", schema(new JsonObject().put("type", "boolean")), 100)).compose(answer -> resolved.map(event -> {
        ctx.verify(() -> {
          assertEquals("cancel", answer.body().getString("action"));
          assertEquals("timeout", event.getString("reason"));
          assertEquals(0, pending.size());
        });
        return null;
      })))).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void theEndOfATurnCancelsOnlyItsConversationsElicitations(Vertx vertx, VertxTestContext ctx) {
    JsonObject s = schema(new JsonObject().put("type", "string"));
    serve(vertx).compose(pending -> required(vertx, "c5", "input_required").compose(opened -> {
      Future<Message<JsonObject>> ended = ask(vertx, elicit("c4", s, 10_000));
      Future<Message<JsonObject>> other = ask(vertx, elicit("c5", s, 10_000));
      return opened.compose(e -> {
        Promise<Void> closed = Promise.promise();
        vertx.runOnContext(v -> {
          pending.closeConversation("c4");
          closed.complete();
        });
        return closed.future();
      }).compose(v -> ended).map(answer -> {
        ctx.verify(() -> {
          assertEquals("cancel", answer.body().getString("action"));
          assertEquals(1, pending.size());
          assertTrue(!other.isComplete());
        });
        pending.closeAll();
        return null;
      });
    })).onComplete(ctx.succeedingThenComplete());
  }
}
