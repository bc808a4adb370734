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

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.sse.SseEvent;
import io.agentbus.testing.Integration;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tool approvals over the HTTP API end to end: the mock model over real HTTP asks for tools of
 * a real stdio MCP server that records every call it receives ({@code approval: "destructive"}
 * on that server). Approve, deny, time out, 409 while paused, a read-only tool of the same turn
 * running meanwhile, tenant isolation, bad bodies, the turn's own SSE stream, the bus actions, and a
 * dispatch on the bus (nobody to ask) refused.
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

  @Test
  void theTurnsOwnSseStreamCarriesTheApprovalEventsAndTheAnswerGoesThrough(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> {
      List<Future<HttpResponse<Buffer>>> answers = new ArrayList<>();
      return fx.stream(id, ALICE, "STREAM: approve from the page", ev -> {
        if ("approval_required".equals(ev.event())) {
          JsonObject data = new JsonObject(ev.data());
          answers.add(fx.answer(id, ALICE, data.getString("tool_use_id"), new JsonObject().put("approve", true)));
        }
      }).compose(events -> Future.all(new ArrayList<>(answers)).map(v -> {
        ctx.verify(() -> {
          List<String> types = events.stream().map(e -> e.event()).toList();
          assertTrue(types.indexOf("tool_call_started") < types.indexOf("approval_required"), types.toString());
          assertTrue(types.indexOf("approval_required") < types.indexOf("approval_resolved"), types.toString());
          assertTrue(types.indexOf("approval_resolved") < types.indexOf("tool_call_finished"), types.toString());
          assertEquals("done", types.get(types.size() - 1));
          assertEquals(1, answers.size());
          assertEquals(200, answers.get(0).result().statusCode());
          JsonObject required = new JsonObject(events.get(types.indexOf("approval_required")).data());
          assertEquals(DELETE, required.getString("name"));
          assertEquals("notes", required.getString("server"));
          assertEquals("delete_note", required.getString("tool"));
          assertEquals("stream-me", required.getJsonObject("arguments").getString("note"));
          assertTrue(required.getLong("expiresAt") > System.currentTimeMillis() - APPROVAL_TIMEOUT_MS);
          assertTrue(required.getJsonObject("annotations").getBoolean("destructiveHint"));
          JsonObject resolved = new JsonObject(events.get(types.indexOf("approval_resolved")).data());
          assertTrue(resolved.getBoolean("approved"));
          assertEquals(required.getString("tool_use_id"), resolved.getString("tool_use_id"));
          JsonObject finished = new JsonObject(events.get(types.indexOf("tool_call_finished")).data());
          assertFalse(finished.getBoolean("is_error"));
        });
        return id;
      }));
    }).compose(id -> fx.serverCalls()).onComplete(ctx.succeeding(calls -> ctx.verify(() -> {
      assertTrue(called(calls, "stream-me"));
      ctx.completeNow();
    })));
  }

  @Test
  void theBusActionsAnswerAndListWithTheTenantChecked(Vertx vertx, VertxTestContext ctx) {
    DeliveryOptions approve = new DeliveryOptions()
      .addHeader(Actions.HEADER, Actions.APPROVE);
    DeliveryOptions list = new DeliveryOptions()
      .addHeader(Actions.HEADER, Actions.APPROVALS);
    String address = Addresses.CONVERSATION;
    fx.create(ALICE).compose(id -> fx.awaitEvent(id, type("approval_required")).compose(required -> {
      Future<HttpResponse<Buffer>> turn = fx.send(id, ALICE, "BUS approval");
      return required.compose(event -> {
        String toolUseId = event.getString("tool_use_id");
        JsonObject answer = new JsonObject().put("id", id).put("toolUseId", toolUseId).put("approve", false)
          .put("reason", "by bus");
        return Future.all(
            vertx.eventBus().<JsonObject>request(address, answer.copy().put("tenant", "bob"), approve)
              .transform(ar -> Future.succeededFuture(ar.cause())),
            vertx.eventBus().<JsonObject>request(address, new JsonObject().put("id", id).put("tenant", "alice"), list),
            vertx.eventBus().<JsonObject>request(address, new JsonObject().put("id", id).put("toolUseId", toolUseId)
              .put("tenant", "alice"), approve).transform(ar -> Future.succeededFuture(ar.cause())))
          .compose(all -> {
            ctx.verify(() -> {
              assertEquals(404, ((ReplyException) all.resultAt(0)).failureCode());
              Message<JsonObject> listed = all.resultAt(1);
              assertEquals(toolUseId, listed.body().getJsonArray("approvals").getJsonObject(0).getString("tool_use_id"));
              ReplyException noApprove = all.resultAt(2);
              assertEquals(400, noApprove.failureCode());
              assertTrue(noApprove.getMessage().contains("'approve'"), noApprove.getMessage());
            });
            return vertx.eventBus().<JsonObject>request(address, answer.copy().put("tenant", "alice"), approve);
          }).map(reply -> {
            ctx.verify(() -> assertEquals(new JsonObject().put("conversationId", id).put("toolUseId", toolUseId)
              .put("approved", false), reply.body()));
            return null;
          });
      }).compose(v -> turn).compose(done -> {
        ctx.verify(() -> assertTrue(done.bodyAsJsonObject().getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError")));
        return Future.all(fx.serverCalls(), toolResults(id));
      }).map(all -> {
        ctx.verify(() -> {
          assertFalse(called(all.resultAt(0), "bus-me"));
          List<JsonObject> results = all.resultAt(1);
          assertTrue(text(results.get(0)).contains("by bus"), text(results.get(0)));
        });
        return null;
      });
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aDispatchOnTheBusNobodyCanApproveIsRefusedBeforeTheServer(Vertx vertx, VertxTestContext ctx) {
    JsonObject body = new JsonObject().put("provider", "anthropic").put("content", new JsonArray()
      .add(ApprovalFixture.toolUse(DELETE, "dispatch-me").put("id", "toolu_d1"))
      .add(ApprovalFixture.toolUse(READ, "dispatch-read").put("id", "toolu_d2")));
    vertx.eventBus().<JsonObject>request(Addresses.DISPATCH, body, new DeliveryOptions()
        .addHeader(Actions.HEADER, Actions.DISPATCH))
      .compose(reply -> fx.serverCalls().map(calls -> {
        ctx.verify(() -> {
          JsonArray content = reply.body().getJsonArray("content");
          assertTrue(content.getJsonObject(0).getBoolean("is_error"));
          assertTrue(text(content.getJsonObject(0)).contains("needs a person's approval"), text(content.getJsonObject(0)));
          assertFalse(content.getJsonObject(1).getBoolean("is_error"));
          assertFalse(called(calls, "dispatch-me"));
          assertTrue(called(calls, "dispatch-read"));
        });
        return null;
      })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aWatcherOfTheConversationSeesAJsonTurnsWaitingCallAndItsOutcome(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.awaitEvent(id, type("approval_required")).compose(required -> {
      Future<HttpResponse<Buffer>> turn = fx.send(id, ALICE, "WATCH from a page opened late");
      // the watcher opens only once the call waits: the stream starts with it
      return required.compose(event -> Future.all(
          fx.watch(id, BOB, ev -> true).transform(ar -> Future.succeededFuture(ar.cause())),
          fx.watch(id, ALICE, ev -> {
            if ("approval_required".equals(ev.event())) {
              fx.answer(id, ALICE, new JsonObject(ev.data()).getString("tool_use_id"), new JsonObject().put("approve", true));
            }
            return "done".equals(ev.event());
          })))
        .compose(watched -> {
          ctx.verify(() -> {
            Throwable bob = watched.resultAt(0);
            assertTrue(bob.getMessage().startsWith("404 "), String.valueOf(bob.getMessage()));
            List<SseEvent> events = watched.resultAt(1);
            List<String> types = events.stream().map(e -> e.event()).toList();
            assertEquals("approval_required", types.get(0), types.toString());
            assertEquals("watch-me", new JsonObject(events.get(0).data()).getJsonObject("arguments").getString("note"));
            assertTrue(types.indexOf("approval_resolved") > 0, types.toString());
            assertTrue(types.indexOf("tool_call_finished") > types.indexOf("approval_resolved"), types.toString());
            assertEquals("done", types.get(types.size() - 1));
            JsonObject done = new JsonObject(events.get(events.size() - 1).data());
            assertEquals("WATCH finished", done.getJsonObject("result").getString("answer"));
          });
          return turn;
        })
        .compose(done -> fx.serverCalls().map(calls -> {
          ctx.verify(() -> {
            assertEquals(200, done.statusCode(), done.bodyAsString());
            assertTrue(called(calls, "watch-me"));
          });
          return null;
        }));
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aWatcherThatStopsReadingIsLetGoRatherThanBufferedFor() throws Exception {
    Vertx vertx = fx.vertx;
    String id = fx.create(ALICE).await(10, TimeUnit.SECONDS);
    String events = Addresses.conversationEvents(id);
    try (RawHttp raw = RawHttp.connect(fx.api.actualPort())) {
      raw.send("GET /v1/conversations/" + id + "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ALICE
        + "\r\n\r\n");
      String head = raw.readUntil("\r\n\r\n", 10_000);
      assertTrue(head != null && head.startsWith("HTTP/1.1 200"), head);
      // reads nothing more; events that may not be dropped flow until the stream lets go, which
      // ends its subscription
      String padding = "x".repeat(16 * 1024);
      Promise<Void> letGo = Promise.promise();
      long timer = vertx.setPeriodic(5, t -> {
        for (int i = 0; i < 20; i++) {
          vertx.eventBus().publish(events, new JsonObject().put("type", "tool_call_started").put("conversationId", id)
            .put("tool_use_id", "t" + i).put("name", padding));
        }
        vertx.eventBus().request(events, new JsonObject().put("type", "probe"), new DeliveryOptions().setSendTimeout(50))
          .onFailure(err -> {
            if (err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
              letGo.tryComplete();
            }
          });
      });
      try {
        letGo.future().await(30, TimeUnit.SECONDS);
      } finally {
        vertx.cancelTimer(timer);
      }
    }
  }
}
