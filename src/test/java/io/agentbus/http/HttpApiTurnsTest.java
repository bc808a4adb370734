package io.agentbus.http;

import io.agentbus.testing.Integration;
import static io.agentbus.http.ApiFixture.ALICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.sse.SseEvent;
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
 * Turns over HTTP end to end (mock model over real HTTP, real server-everything over stdio):
 * JSON and SSE, a running turn's 409, bounded admission's 503, a streaming client that goes
 * away, and the meters the turns leave in /metrics.
 */
@Integration
@ExtendWith(VertxExtension.class)
class HttpApiTurnsTest {

  static ApiFixture fx;

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) {
    ApiFixture.start(vertx).onComplete(ctx.succeeding(f -> {
      fx = f;
      ctx.completeNow();
    }));
  }

  @AfterAll
  static void stop(VertxTestContext ctx) {
    fx.close().onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aConversationOverJson(VertxTestContext ctx) {
    fx.request(HttpMethod.POST, "/v1/conversations", ALICE).sendJsonObject(new JsonObject().put("system", "Be brief."))
      .compose(created -> {
        ctx.verify(() -> {
          assertEquals(201, created.statusCode());
          String id = created.bodyAsJsonObject().getString("id");
          assertEquals("/v1/conversations/" + id, created.getHeader("Location"));
        });
        String id = created.bodyAsJsonObject().getString("id");
        int requestsBefore = fx.mock.requestCount();
        int streamedBefore = fx.mock.streamedRequestCount();
        return fx.send(fx.api, id, ALICE, "PARALLEL: echo hello and add 2 and 3").compose(turn -> {
          ctx.verify(() -> {
            assertEquals(200, turn.statusCode(), turn.bodyAsString());
            // nobody watches a JSON turn's text deltas: the model is asked for whole replies
            assertEquals(2, fx.mock.requestCount() - requestsBefore);
            assertEquals(0, fx.mock.streamedRequestCount() - streamedBefore);
            assertTrue(turn.getHeader("Content-Type").startsWith("application/json"));
            JsonObject r = turn.bodyAsJsonObject();
            assertEquals("end_turn", r.getString("status"));
            assertEquals("Echo said hello and 2+3=5.", r.getString("answer"));
            JsonArray calls = r.getJsonArray("toolCalls");
            assertEquals(2, calls.size());
            assertEquals(ApiFixture.ECHO, calls.getJsonObject(0).getString("name"));
            assertFalse(calls.getJsonObject(0).getBoolean("isError"));
            assertTrue(r.getJsonObject("usage").getJsonObject("turn").getLong("output_tokens") > 0);
          });
          return fx.request(HttpMethod.GET, "/v1/conversations/" + id, ALICE).send();
        }).compose(got -> {
          ctx.verify(() -> {
            assertEquals(200, got.statusCode());
            JsonObject c = got.bodyAsJsonObject();
            assertEquals(4, c.getJsonArray("messages").size());
            assertEquals("Be brief.", c.getString("system"));
            assertEquals(1, c.getInteger("turns"));
            assertTrue(c.getJsonObject("usage").getLong("output_tokens") > 0);
          });
          return fx.request(HttpMethod.DELETE, "/v1/conversations/" + id, ALICE).send();
        }).compose(deleted -> {
          ctx.verify(() -> {
            assertEquals(204, deleted.statusCode());
            assertEquals(null, deleted.body());
          });
          return fx.request(HttpMethod.GET, "/v1/conversations/" + id, ALICE).send();
        });
      })
      .onComplete(ctx.succeeding(gone -> ctx.verify(() -> {
        assertEquals(404, gone.statusCode());
        assertEquals("not_found", gone.bodyAsJsonObject().getJsonObject("error").getString("type"));
        ctx.completeNow();
      })));
  }

  @Test
  void aTurnStreamsAsServerSentEvents(VertxTestContext ctx) {
    int[] streamedBefore = new int[1];
    fx.create(ALICE).compose(id -> {
      streamedBefore[0] = fx.mock.streamedRequestCount();
      return fx.stream(id, ALICE, "PARALLEL over SSE", null);
    })
      .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
        assertEquals(200, s.response().statusCode());
        assertEquals(2, fx.mock.streamedRequestCount() - streamedBefore[0]);
        assertTrue(s.response().getHeader("Content-Type").startsWith("text/event-stream"));
        assertEquals("no-cache", s.response().getHeader("Cache-Control"));
        List<String> names = s.events().stream().map(SseEvent::event).toList();
        assertEquals("turn_started", names.get(0), names::toString);
        assertEquals("done", names.get(names.size() - 1), names::toString);
        int firstStarted = names.indexOf("tool_call_started");
        int lastFinished = names.lastIndexOf("tool_call_finished");
        assertEquals(2, names.stream().filter("tool_call_started"::equals).count(), names::toString);
        assertEquals(2, names.stream().filter("tool_call_finished"::equals).count(), names::toString);
        assertTrue(firstStarted > 0 && lastFinished > firstStarted, names::toString);
        // text before the tools ("Let me check both.") and after them (the answer)
        assertTrue(names.subList(0, firstStarted).contains("text_delta"), names::toString);
        assertTrue(names.subList(lastFinished, names.size()).contains("text_delta"), names::toString);
        assertTrue(names.indexOf("usage") > lastFinished && names.indexOf("usage") < names.size() - 1, names::toString);
        StringBuilder text = new StringBuilder();
        s.events().stream().filter(e -> "text_delta".equals(e.event()))
          .forEach(e -> text.append(new JsonObject(e.data()).getString("text")));
        assertTrue(text.toString().endsWith("Echo said hello and 2+3=5."), text::toString);
        JsonObject started = new JsonObject(s.events().get(firstStarted).data());
        assertEquals("everything", started.getString("server"));
        assertTrue(started.getString("tool_use_id").startsWith("toolu_"), started::encode);
        JsonObject done = new JsonObject(s.events().get(names.size() - 1).data());
        assertEquals("end_turn", done.getJsonObject("result").getString("status"));
        assertEquals("Echo said hello and 2+3=5.", done.getJsonObject("result").getString("answer"));
        ctx.completeNow();
      })));
  }

  @Test
  void aStreamedTurnRefusedUpFrontIsAPlainJsonError(VertxTestContext ctx) {
    fx.stream("c0-00000000000000000000000000000000", ALICE, "hello", null)
      .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
        assertEquals(404, s.response().statusCode());
        assertTrue(s.response().getHeader("Content-Type").startsWith("application/json"));
        ctx.completeNow();
      })));
  }

  @Test
  void aRunningTurnIs409AndAdmissionIsBoundedWith503(VertxTestContext ctx) {
    Future.all(fx.create(ALICE), fx.create(ALICE)).compose(ids -> {
      String busy = ids.resultAt(0);
      String other = ids.resultAt(1);
      return fx.awaitEvent(busy, e -> "tool_call_started".equals(e.getString("type"))).compose(toolStarted -> {
        Future<HttpResponse<Buffer>> slow = fx.send(fx.limited, busy, ALICE, "SLOW one");
        return toolStarted
          .compose(e -> fx.send(fx.api, busy, ALICE, "again?"))
          .compose(conflict -> {
            ctx.verify(() -> {
              assertEquals(409, conflict.statusCode(), conflict.bodyAsString());
              assertEquals("conflict", conflict.bodyAsJsonObject().getJsonObject("error").getString("type"));
            });
            return fx.send(fx.limited, other, ALICE, "PARALLEL elsewhere");
          })
          .compose(overloaded -> {
            ctx.verify(() -> {
              assertEquals(503, overloaded.statusCode(), overloaded.bodyAsString());
              assertEquals("3", overloaded.getHeader("Retry-After"));
              assertEquals("overloaded", overloaded.bodyAsJsonObject().getJsonObject("error").getString("type"));
              String why = overloaded.bodyAsJsonObject().getJsonObject("error").getString("message");
              assertTrue(why.contains("1 turns running") && why.contains("http.maxInFlightTurns"), why);
            });
            return slow;
          })
          .compose(first -> {
            ctx.verify(() -> {
              assertEquals(200, first.statusCode(), first.bodyAsString());
              assertEquals("slow done", first.bodyAsJsonObject().getString("answer"));
            });
            // the refused turns changed nothing: the other conversation is still empty
            return fx.request(HttpMethod.GET, "/v1/conversations/" + other, ALICE).send();
          });
      });
    }).onComplete(ctx.succeeding(other -> ctx.verify(() -> {
      assertEquals(0, other.bodyAsJsonObject().getJsonArray("messages").size());
      assertEquals(0, other.bodyAsJsonObject().getInteger("turns"));
      ctx.completeNow();
    })));
  }

  @Test
  void aStreamingClientThatGoesAwayLeavesTheTurnRunning(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.awaitEvent(id, e -> "done".equals(e.getString("type"))).compose(done ->
        fx.stream(id, ALICE, "SLOW and leave", (ev, resp) -> {
          if ("turn_started".equals(ev.event())) {
            resp.request().connection().close();
          }
        }).compose(s -> {
          ctx.verify(() -> assertFalse(s.events().stream().anyMatch(e -> "done".equals(e.event()))));
          return done;
        }).compose(ev -> fx.request(HttpMethod.GET, "/v1/conversations/" + id, ALICE).send())))
      .onComplete(ctx.succeeding(got -> ctx.verify(() -> {
        JsonObject c = got.bodyAsJsonObject();
        assertEquals(4, c.getJsonArray("messages").size(), c::encode);
        assertFalse(c.getBoolean("busy"));
        ctx.completeNow();
      })));
  }

  @Test
  void metricsShowToolAndModelCallsAfterATurn(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.send(fx.api, id, ALICE, "PARALLEL for metrics"))
      .compose(turn -> fx.request(HttpMethod.GET, "/metrics", null).send())
      .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
        assertEquals(200, m.statusCode());
        assertTrue(m.getHeader("Content-Type").startsWith("text/plain"));
        String text = m.bodyAsString();
        assertTrue(text.contains("agentbus_tool_calls_seconds_count{outcome=\"ok\",server=\"everything\",tool=\"echo\"}"), text);
        assertTrue(text.contains("agentbus_tool_calls_seconds_bucket{outcome=\"ok\",server=\"everything\",tool=\"get-sum\""), text);
        assertTrue(text.contains("agentbus_model_calls_seconds_count{outcome=\"ok\",provider=\"anthropic\",status=\"tool_use\"}"), text);
        assertTrue(text.contains("agentbus_model_calls_seconds_count{outcome=\"ok\",provider=\"anthropic\",status=\"end_turn\"}"), text);
        assertTrue(text.contains("agentbus_model_tokens_total{provider=\"anthropic\",type=\"input\"}"), text);
        assertTrue(text.contains("agentbus_model_tokens_total{provider=\"anthropic\",type=\"output\"}"), text);
        assertTrue(text.contains("agentbus_turns_seconds_count{status=\"end_turn\"}"), text);
        assertTrue(text.contains("agentbus_turns_running "), text);
        assertTrue(text.contains("agentbus_conversations_active "), text);
        assertTrue(text.contains("agentbus_http_turns_in_flight "), text);
        assertTrue(text.contains("jvm_memory_used_bytes"), text);
        ctx.completeNow();
      })));
  }
}
