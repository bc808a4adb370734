package io.agentbus.http;

import static io.agentbus.http.ApprovalFixture.ALICE;
import static io.agentbus.http.ApprovalFixture.BOB;
import static io.agentbus.http.ApprovalFixture.DELETE;
import static io.agentbus.http.ApprovalFixture.READ;
import static io.agentbus.http.ApprovalFixture.called;
import static io.agentbus.http.ApprovalFixture.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.Integration;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tool approvals over the HTTP API end to end: the mock model over real HTTP asks for tools of
 * a real stdio MCP server that records every call it receives ({@code approval: "destructive"}
 * on that server). Approve, deny, time out, 409 while paused, a read-only tool of the same turn
 * running meanwhile, tenant isolation and bad bodies.
 */
@Integration
@ExtendWith(VertxExtension.class)
class ApprovalsApiTest {

  /** Long enough for the tests that answer; the timeout test waits it out. */
  static final long APPROVAL_TIMEOUT_MS = 3_000;
  static ApprovalFixture fx;

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) {
    ApprovalFixture.start(vertx, APPROVAL_TIMEOUT_MS).onComplete(ctx.succeeding(f -> {
      fx = f;
      ctx.completeNow();
    }));
  }

  @AfterAll
  static void stop(VertxTestContext ctx) {
    fx.close().onComplete(ctx.succeedingThenComplete());
  }

  /** @return the tool_result blocks of the conversation's history */
  private static Future<List<JsonObject>> toolResults(String id) {
    return fx.request(HttpMethod.GET, "/v1/conversations/" + id, ALICE).send().map(r -> r.bodyAsJsonObject()
      .getJsonArray("messages").stream().map(m -> (JsonObject) m)
      .filter(m -> "user".equals(m.getString("role")) && m.getValue("content") instanceof JsonArray)
      .flatMap(m -> m.getJsonArray("content").stream().map(b -> (JsonObject) b))
      .filter(b -> "tool_result".equals(b.getString("type"))).toList());
  }

  private static String text(JsonObject toolResult) {
    return toolResult.getJsonArray("content").getJsonObject(0).getString("text");
  }

  @Test
  void anApprovedCallRunsOnceAndASecondAnswerIs409(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.awaitEvent(id, type("approval_required")).compose(required -> {
      Future<HttpResponse<Buffer>> turn = fx.send(id, ALICE, "APPROVE the deletion");
      return required.compose(event -> {
        ctx.verify(() -> {
          assertEquals(id, event.getString("conversationId"));
          assertEquals(DELETE, event.getString("name"));
          assertEquals("notes", event.getString("server"));
          assertEquals("delete_note", event.getString("tool"));
          assertEquals(new JsonObject().put("note", "approve-me"), event.getJsonObject("arguments"));
          assertTrue(event.getBoolean("destructive"));
          assertEquals(APPROVAL_TIMEOUT_MS, event.getLong("timeoutMs"));
        });
        String toolUseId = event.getString("tool_use_id");
        return fx.approvals(id, ALICE).compose(listed -> {
          ctx.verify(() -> {
            assertEquals(200, listed.statusCode(), listed.bodyAsString());
            JsonArray waiting = listed.bodyAsJsonObject().getJsonArray("approvals");
            assertEquals(1, waiting.size());
            assertEquals(toolUseId, waiting.getJsonObject(0).getString("tool_use_id"));
          });
          return fx.answer(id, ALICE, toolUseId, new JsonObject().put("approve", true));
        }).compose(approved -> {
          ctx.verify(() -> {
            assertEquals(200, approved.statusCode(), approved.bodyAsString());
            assertEquals(new JsonObject().put("conversationId", id).put("toolUseId", toolUseId).put("approved", true),
              approved.bodyAsJsonObject());
          });
          return fx.answer(id, ALICE, toolUseId, new JsonObject().put("approve", false));
        }).compose(again -> {
          ctx.verify(() -> {
            assertEquals(409, again.statusCode(), again.bodyAsString());
            assertTrue(again.bodyAsJsonObject().getJsonObject("error").getString("message").contains("no longer waits"));
          });
          return turn;
        });
      }).compose(done -> {
        ctx.verify(() -> {
          assertEquals(200, done.statusCode(), done.bodyAsString());
          assertFalse(done.bodyAsJsonObject().getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError"));
        });
        return Future.all(fx.serverCalls(), toolResults(id), fx.approvals(id, ALICE));
      }).map(all -> {
        ctx.verify(() -> {
          JsonArray calls = all.resultAt(0);
          assertEquals(1, calls.stream().filter(c -> "approve-me".equals(((JsonObject) c).getJsonObject("arguments")
            .getString("note"))).count());
          List<JsonObject> results = all.resultAt(1);
          assertEquals(1, results.size());
          assertFalse(results.get(0).getBoolean("is_error"));
          assertEquals("delete_note done: approve-me", text(results.get(0)));
          HttpResponse<Buffer> after = all.resultAt(2);
          assertEquals(new JsonArray(), after.bodyAsJsonObject().getJsonArray("approvals"));
        });
        return null;
      });
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aDeniedCallNeverReachesTheServerAndTheConversationIsBusyMeanwhile(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.awaitEvent(id, type("approval_required")).compose(required -> {
      Future<Future<JsonObject>> resolved = fx.awaitEvent(id, type("approval_resolved"));
      Future<HttpResponse<Buffer>> turn = fx.send(id, ALICE, "DENY the deletion");
      return required.compose(event -> fx.send(id, ALICE, "another message while paused").compose(busy -> {
        ctx.verify(() -> assertEquals(409, busy.statusCode(), busy.bodyAsString()));
        return fx.answer(id, ALICE, event.getString("tool_use_id"),
          new JsonObject().put("approve", false).put("reason", "not now"));
      })).compose(denied -> {
        ctx.verify(() -> assertEquals(200, denied.statusCode(), denied.bodyAsString()));
        return resolved.compose(r -> r);
      }).compose(decision -> {
        ctx.verify(() -> {
          assertFalse(decision.getBoolean("approved"));
          assertEquals("user", decision.getString("decidedBy"));
          assertEquals("not now", decision.getString("reason"));
        });
        return turn;
      }).compose(done -> {
        ctx.verify(() -> {
          assertEquals(200, done.statusCode(), done.bodyAsString());
          assertEquals("DENY finished", done.bodyAsJsonObject().getString("answer"));
          assertTrue(done.bodyAsJsonObject().getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError"));
        });
        return Future.all(fx.serverCalls(), toolResults(id));
      }).map(all -> {
        ctx.verify(() -> {
          assertFalse(called(all.resultAt(0), "deny-me"), "a denied call reached the server");
          List<JsonObject> results = all.resultAt(1);
          assertEquals(1, results.size());
          assertTrue(results.get(0).getBoolean("is_error"));
          assertTrue(text(results.get(0)).contains("denied") && text(results.get(0)).contains("not now"), text(results.get(0)));
        });
        return null;
      });
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void anUnansweredCallTimesOutAsAnErrorResultAndALateAnswerIs409(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.send(id, ALICE, "TIMEOUT: nobody answers").compose(done -> {
      ctx.verify(() -> {
        assertEquals(200, done.statusCode(), done.bodyAsString());
        assertEquals("TIMEOUT finished", done.bodyAsJsonObject().getString("answer"));
        assertTrue(done.bodyAsJsonObject().getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError"));
      });
      String toolUseId = done.bodyAsJsonObject().getJsonArray("toolCalls").getJsonObject(0).getString("id");
      return Future.all(fx.serverCalls(), toolResults(id), fx.answer(id, ALICE, toolUseId, new JsonObject().put("approve", true)));
    }).map(all -> {
      ctx.verify(() -> {
        assertFalse(called(all.resultAt(0), "timeout-me"), "a call nobody approved reached the server");
        List<JsonObject> results = all.resultAt(1);
        assertTrue(results.get(0).getBoolean("is_error"));
        assertTrue(text(results.get(0)).contains("nobody approved it within " + APPROVAL_TIMEOUT_MS + " ms"), text(results.get(0)));
        HttpResponse<Buffer> late = all.resultAt(2);
        assertEquals(409, late.statusCode(), late.bodyAsString());
      });
      return null;
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aReadOnlyToolOfTheSameTurnRunsWhileTheOtherWaits(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> Future.all(fx.awaitEvent(id, type("approval_required")),
        fx.awaitEvent(id, e -> "tool_call_finished".equals(e.getString("type")) && READ.equals(e.getString("name"))))
      .compose(subscribed -> {
        Future<JsonObject> required = subscribed.<Future<JsonObject>>resultAt(0);
        Future<JsonObject> readDone = subscribed.<Future<JsonObject>>resultAt(1);
        Future<HttpResponse<Buffer>> turn = fx.send(id, ALICE, "PARALLEL: delete one, read one");
        // the read finishes while the delete still waits: only then is the delete approved
        return Future.all(required, readDone).compose(both -> fx.serverCalls().compose(calls -> {
          ctx.verify(() -> {
            assertTrue(called(calls, "parallel-read"));
            assertFalse(called(calls, "parallel-delete"));
          });
          return fx.answer(id, ALICE, required.result().getString("tool_use_id"), new JsonObject().put("approve", true));
        })).compose(approved -> turn).compose(done -> {
          ctx.verify(() -> {
            assertEquals(200, done.statusCode(), done.bodyAsString());
            JsonArray toolCalls = done.bodyAsJsonObject().getJsonArray("toolCalls");
            assertEquals(2, toolCalls.size());
            assertFalse(toolCalls.getJsonObject(0).getBoolean("isError"));
            assertFalse(toolCalls.getJsonObject(1).getBoolean("isError"));
          });
          return fx.request(HttpMethod.GET, "/v1/conversations/" + id, ALICE).send();
        }).map(got -> {
          ctx.verify(() -> {
            // one user message answers both tool_use blocks, in their order
            JsonArray messages = got.bodyAsJsonObject().getJsonArray("messages");
            JsonArray results = messages.getJsonObject(2).getJsonArray("content");
            assertEquals(2, results.size());
            assertEquals("delete_note done: parallel-delete", text(results.getJsonObject(0)));
            assertEquals("read_note done: parallel-read", text(results.getJsonObject(1)));
          });
          return null;
        });
      })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void anotherTenantCannotSeeOrAnswerTheApprovals(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.awaitEvent(id, type("approval_required")).compose(required -> {
      Future<HttpResponse<Buffer>> turn = fx.send(id, ALICE, "TENANT isolation");
      return required.compose(event -> {
        String toolUseId = event.getString("tool_use_id");
        return Future.all(fx.approvals(id, BOB), fx.answer(id, BOB, toolUseId, new JsonObject().put("approve", true)))
          .compose(bob -> {
            ctx.verify(() -> {
              HttpResponse<Buffer> list = bob.resultAt(0);
              HttpResponse<Buffer> answer = bob.resultAt(1);
              assertEquals(404, list.statusCode(), list.bodyAsString());
              assertEquals(404, answer.statusCode(), answer.bodyAsString());
            });
            // still waiting for its own tenant
            return fx.approvals(id, ALICE);
          }).compose(list -> {
            ctx.verify(() -> assertEquals(1, list.bodyAsJsonObject().getJsonArray("approvals").size()));
            return fx.answer(id, ALICE, toolUseId, new JsonObject().put("approve", false).put("reason", "cleanup"));
          });
      }).compose(denied -> turn).map(done -> {
        ctx.verify(() -> assertEquals(200, done.statusCode(), done.bodyAsString()));
        return null;
      });
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void badAnswersGetClearErrorsAndChangeNothing(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.awaitEvent(id, type("approval_required")).compose(required -> {
      Future<HttpResponse<Buffer>> turn = fx.send(id, ALICE, "DENY after bad answers");
      return required.compose(event -> {
        String toolUseId = event.getString("tool_use_id");
        String path = "/v1/conversations/" + id + "/approvals/" + toolUseId;
        return Future.all(List.of(
          fx.answer(id, ALICE, toolUseId, new JsonObject()),
          fx.answer(id, ALICE, toolUseId, new JsonObject().put("approve", "yes")),
          fx.answer(id, ALICE, toolUseId, new JsonObject().put("approve", true).put("reason", 7)),
          fx.answer(id, ALICE, toolUseId, new JsonObject().put("approve", true).put("reason", "x".repeat(2_001))),
          fx.request(HttpMethod.POST, path, ALICE).putHeader("Content-Type", "application/json").sendBuffer(Buffer.buffer("{nope")),
          fx.answer(id, ALICE, "toolu_unknown", new JsonObject().put("approve", true)),
          fx.answer("c0-nosuchconversation", ALICE, toolUseId, new JsonObject().put("approve", true)),
          fx.approvals(id, ALICE)))
          .compose(all -> {
            ctx.verify(() -> {
              for (int i = 0; i < 5; i++) {
                HttpResponse<Buffer> r = all.resultAt(i);
                assertEquals(400, r.statusCode(), i + ": " + r.bodyAsString());
              }
              HttpResponse<Buffer> first = all.resultAt(0);
              assertTrue(first.bodyAsJsonObject().getJsonObject("error").getString("message").contains("'approve'"));
              HttpResponse<Buffer> unknownId = all.resultAt(5);
              assertEquals(404, unknownId.statusCode(), unknownId.bodyAsString());
              assertTrue(unknownId.bodyAsJsonObject().getJsonObject("error").getString("message").contains("toolu_unknown"));
              HttpResponse<Buffer> unknownConversation = all.resultAt(6);
              assertEquals(404, unknownConversation.statusCode(), unknownConversation.bodyAsString());
              HttpResponse<Buffer> stillWaiting = all.resultAt(7);
              assertEquals(1, stillWaiting.bodyAsJsonObject().getJsonArray("approvals").size());
            });
            return fx.answer(id, ALICE, toolUseId, new JsonObject().put("approve", false));
          });
      }).compose(denied -> turn).compose(done -> {
        ctx.verify(() -> assertEquals(200, done.statusCode(), done.bodyAsString()));
        // no turn waits now: a tool_use that never asked is 404
        return fx.answer(id, ALICE, "toolu_never", new JsonObject().put("approve", true));
      }).map(none -> {
        ctx.verify(() -> assertEquals(404, none.statusCode(), none.bodyAsString()));
        return null;
      });
    })).onComplete(ctx.succeedingThenComplete());
  }
}
