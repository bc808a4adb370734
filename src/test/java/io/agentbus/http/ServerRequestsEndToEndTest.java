package io.agentbus.http;

import static io.agentbus.http.ServerRequestsApi.script;
import static io.agentbus.http.ServerRequestsApi.text;
import static io.agentbus.http.ServerRequestsApi.toolUse;
import static io.agentbus.http.ServerRequestsApi.type;
import static io.agentbus.http.ServerRequestsApi.uses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mcp.SamplingOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.sse.SseEvent;
import io.agentbus.sse.SseParser;
import io.agentbus.testing.ElicitingServer;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Server requests routed to the right user, end to end: the mock model over real HTTP, the
 * {@link ElicitingServer} as a real stdio child process, the HTTP API. Elicitation (SSE
 * {@code input_required}, an invalid answer kept open, tenant isolation, defaults applied,
 * decline, no answer → cancel, a request outside any call declined), roots (the server's and a
 * conversation's own, with {@code list_changed}) and sampling (answered by the conversation's
 * model, refused over {@code maxCallsPerTurn}).
 */
@Integration
@ExtendWith(VertxExtension.class)
class ServerRequestsEndToEndTest {

  static final String ALICE = "alice-token-e1";
  static final String BOB = "bob-token-e2";
  static MockModelServer mock;
  static Agentbus agentbus;
  static HttpApiVerticle api;
  static ServerRequestsApi calls;
  static HttpClient http;

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) {
    JsonObject sample = toolUse("mcp__elicit__sample", new JsonObject().put("prompt", "sub-prompt"));
    JsonObject scripts = new JsonObject().put("conversations", new JsonArray()
      .add(script("sub-prompt", text("sampled-answer")))
      .add(script("ASK_SHORT", uses(toolUse("mcp__short__ask", new JsonObject())), text("asked short")))
      .add(script("ASK", uses(toolUse("mcp__elicit__ask", new JsonObject())), text("asked")))
      // reply i answers the request whose history holds i assistant messages: two turns each
      .add(script("ROOTS", uses(toolUse("mcp__elicit__roots", new JsonObject())), text("rooted"),
        uses(toolUse("mcp__elicit__client_info", new JsonObject())), text("info")))
      .add(script("LATER", uses(toolUse("mcp__elicit__ask_outside", new JsonObject())), text("later"),
        uses(toolUse("mcp__elicit__outside_answer", new JsonObject())), text("outside")))
      .add(script("PLEASE_SAMPLE", uses(sample), uses(sample.copy()), text("sampled twice")))
      .add(script("PERMIT_SAMPLE", uses(toolUse("mcp__asked__sample", new JsonObject().put("prompt", "sub-prompt"))),
        text("asked sample")))
      .add(script(null, text("plain"))));
    MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(scripts))
      .compose(m -> {
        mock = m;
        ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
          .setBaseUrl("http://127.0.0.1:" + m.actualPort()).setModel("mock-model");
        return Agentbus.deploy(vertx, new AgentbusOptions()
          .addMcpServer(InteropServers.javaMain("elicit", ElicitingServer.class)
            .setRoots(new JsonArray().add(new JsonObject().put("uri", "file:///data").put("name", "data")))
            .setSampling(new SamplingOptions(true, 100, 1, "never")))
          .addMcpServer(InteropServers.javaMain("short", ElicitingServer.class).setMaxTotalTimeoutMs(1_500))
          .addMcpServer(InteropServers.javaMain("asked", ElicitingServer.class).setAllowedTools(java.util.List.of("sample"))
            .setSampling(new SamplingOptions(true, 100, 3, "always")))
          .setConversationInstances(2)
          .setConversation(new ConversationOptions().setModel(model).setMaxIterations(5)));
      })
      .compose(a -> {
        agentbus = a;
        api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(ALICE, "alice").addToken(BOB, "bob"));
        return vertx.deployVerticle(api);
      })
      .onComplete(ctx.succeeding(id -> {
        calls = new ServerRequestsApi(WebClient.create(vertx), api.actualPort());
        http = vertx.createHttpClient();
        ctx.completeNow();
      }));
  }

  @AfterAll
  static void stop(Vertx vertx, VertxTestContext ctx) {
    agentbus.close().eventually(() -> mock.close()).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void anElicitationReachesItsUserOverSseAndTheCheckedAnswerWithDefaultsReachesTheServer(Vertx vertx, VertxTestContext ctx) {
    calls.create(ALICE, new JsonObject()).compose(id -> {
      RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(api.actualPort())
        .setURI("/v1/conversations/" + id + "/messages").putHeader("Authorization", "Bearer " + ALICE)
        .putHeader("Accept", "text/event-stream").putHeader("Content-Type", "application/json");
      List<String> answers = new ArrayList<>();
      Promise<List<SseEvent>> done = Promise.promise();
      return http.request(options).compose(req -> {
        List<SseEvent> events = new ArrayList<>();
        req.response().onSuccess(resp -> {
          resp.handler(SseParser.create().handler(ev -> {
            events.add(ev);
            if ("input_required".equals(ev.event())) {
              JsonObject e = new JsonObject(ev.data());
              String eid = e.getString("elicitationId");
              // too short a name: 400 naming the violation, and the elicitation stays open
              calls.answer(id, eid, ALICE, new JsonObject().put("action", "accept").put("content", new JsonObject().put("name", "x")))
                .compose(r -> {
                  answers.add(r.statusCode() + " " + r.bodyAsString());
                  return calls.answer(id, eid, BOB, new JsonObject().put("action", "accept")
                    .put("content", new JsonObject().put("name", "Mallory")));
                })
                .compose(r -> {
                  answers.add(r.statusCode() + " " + r.bodyAsString());
                  return calls.answer(id, eid, ALICE, new JsonObject().put("action", "accept").put("content", new JsonObject().put("name", "Ada")));
                })
                .onSuccess(r -> answers.add(r.statusCode() + " " + r.bodyAsString()))
                .onFailure(done::tryFail);
            }
          }));
          resp.endHandler(v -> done.tryComplete(events));
        }).onFailure(done::tryFail);
        return req.end(new JsonObject().put("content", "ASK").toBuffer()).compose(v -> done.future());
      }).compose(events -> calls.lastToolResult(id, ALICE).map(result -> {
        ctx.verify(() -> {
          SseEvent required = events.stream().filter(e -> "input_required".equals(e.event())).findFirst().orElseThrow();
          JsonObject e = new JsonObject(required.data());
          assertEquals(id, e.getString("conversationId"));
          assertEquals("Who are you?", e.getString("message"));
          assertEquals(ElicitingServer.SCHEMA, e.getJsonObject("requestedSchema"));
          assertEquals("elicit", e.getString("server"));
          assertEquals("form", e.getString("mode"));
          assertTrue(e.getString("tool_use_id") != null && e.getString("requestId") != null, e::encode);
          assertTrue(events.stream().anyMatch(ev -> "input_resolved".equals(ev.event()) && ev.data().contains("\"accept\"")));
          assertEquals(3, answers.size(), answers::toString);
          assertTrue(answers.get(0).startsWith("400 ") && answers.get(0).contains("violations")
            && answers.get(0).contains("name"), answers.get(0));
          assertTrue(answers.get(1).startsWith("404 "), answers.get(1));
          assertTrue(answers.get(2).startsWith("200 "), answers.get(2));
          // the server got the answer with the defaults of the fields left out
          assertTrue(result.contains("\\\"action\\\":\\\"accept\\\""), result);
          assertTrue(result.contains("\\\"name\\\":\\\"Ada\\\"") && result.contains("\\\"age\\\":30")
            && result.contains("\\\"color\\\":\\\"red\\\""), result);
        });
        return null;
      }));
    }).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aDeclineReachesTheServerAndAnAnsweredElicitationIsGone(Vertx vertx, VertxTestContext ctx) {
    calls.create(ALICE, new JsonObject()).compose(id -> ServerRequestsApi.awaitEvent(vertx, id, ServerRequestsApi.type("input_required")).compose(required -> {
      Future<JsonObject> turn = calls.send(id, ALICE, "ASK");
      return required
        // a client that missed the event finds it open; another tenant sees nothing
        .compose(e -> calls.openElicitations(id, ALICE).compose(mine -> calls.openElicitations(id, BOB).map(theirs -> {
          ctx.verify(() -> {
            assertEquals(1, mine.size(), mine::encode);
            assertEquals(e.getString("elicitationId"), mine.getJsonObject(0).getString("elicitationId"));
            assertEquals(ElicitingServer.SCHEMA, mine.getJsonObject(0).getJsonObject("requestedSchema"));
            assertEquals(0, theirs.size(), theirs::encode);
          });
          return e;
        })))
        .compose(e -> calls.answer(id, e.getString("elicitationId"), ALICE, new JsonObject().put("action", "decline"))
          .compose(first -> calls.answer(id, e.getString("elicitationId"), ALICE, new JsonObject().put("action", "decline"))
            .map(second -> List.of(first, second))))
        .compose(replies -> turn.compose(result -> calls.lastToolResult(id, ALICE))
          .compose(result -> calls.openElicitations(id, ALICE).map(after -> {
            ctx.verify(() -> assertEquals(0, after.size(), after::encode));
            return result;
          })).map(result -> {
          ctx.verify(() -> {
            assertEquals(200, replies.get(0).statusCode(), replies.get(0).bodyAsString());
            assertEquals(404, replies.get(1).statusCode(), replies.get(1).bodyAsString());
            assertTrue(result.contains("\\\"action\\\":\\\"decline\\\""), result);
          });
          return null;
        }));
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void noAnswerWithinTheCallsDeadlineCancels(Vertx vertx, VertxTestContext ctx) {
    calls.create(ALICE, new JsonObject()).compose(id -> ServerRequestsApi.awaitEvent(vertx, id, ServerRequestsApi.type("input_resolved")).compose(resolved ->
      calls.send(id, ALICE, "ASK_SHORT").compose(r -> resolved).compose(event -> calls.lastToolResult(id, ALICE).map(result -> {
        ctx.verify(() -> {
          assertEquals("cancel", event.getString("action"));
          assertEquals("timeout", event.getString("reason"));
          assertTrue(result.contains("\\\"action\\\":\\\"cancel\\\""), result);
        });
        return null;
      })))).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void anElicitationOutsideAnyCallIsDeclinedWithTheReason(VertxTestContext ctx) {
    calls.create(ALICE, new JsonObject()).compose(id -> calls.send(id, ALICE, "LATER").compose(r -> calls.send(id, ALICE, "OUTSIDE"))
      .compose(r -> calls.lastToolResult(id, ALICE)).map(result -> {
        ctx.verify(() -> {
          assertTrue(result.contains("\\\"action\\\":\\\"decline\\\""), result);
          assertTrue(result.contains("outside any tool call"), result);
        });
        return null;
      })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void answersForUnknownElicitationsAndBadBodiesAreRefused(VertxTestContext ctx) {
    calls.create(ALICE, new JsonObject()).compose(id -> calls.answer(id, "nope", ALICE, new JsonObject().put("action", "accept"))
      .compose(unknown -> calls.answer(id, "nope", ALICE, new JsonObject().put("action", "maybe")).map(bad -> {
        ctx.verify(() -> {
          assertEquals(404, unknown.statusCode(), unknown.bodyAsString());
          assertEquals(400, bad.statusCode(), bad.bodyAsString());
        });
        return null;
      }))).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void rootsAreTheConversationsOwnElseTheServersAndChangesAreAnnounced(VertxTestContext ctx) {
    JsonArray own = new JsonArray().add(new JsonObject().put("uri", "file:///home/alice").put("name", "home"));
    calls.create(ALICE, new JsonObject().put("roots", own))
      .compose(id -> calls.send(id, ALICE, "ROOTS").compose(r -> calls.lastToolResult(id, ALICE)))
      .compose(withOwn -> calls.create(ALICE, new JsonObject())
        .compose(id -> calls.send(id, ALICE, "ROOTS").compose(r -> calls.send(id, ALICE, "INFO")).compose(r -> calls.lastToolResult(id, ALICE))
          .compose(info -> calls.toolResults(id, ALICE).map(all -> all.stream().filter(r -> r.contains("roots")).findFirst().orElse("")).map(serverRoots -> List.of(withOwn, serverRoots, info)))))
      .compose(results -> calls.post("/v1/conversations", ALICE, new JsonObject().put("roots", new JsonArray().add(new JsonObject()
        .put("uri", "http://not-a-file")))).map(bad -> {
        ctx.verify(() -> {
          assertTrue(results.get(0).contains("file:///home/alice"), results.get(0));
          assertTrue(results.get(1).contains("file:///data"), results.get(1));
          String info = results.get(2);
          assertTrue(info.contains("\\\"listChanged\\\":true") && info.contains("\\\"form\\\"") && info.contains("\\\"sampling\\\""), info);
          assertTrue(!info.contains("\\\"rootsChanged\\\":0"), info);
          assertEquals(400, bad.statusCode(), bad.bodyAsString());
        });
        return null;
      })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void samplingGoesToTheConversationsModelWithinItsPerTurnLimit(VertxTestContext ctx) {
    calls.create(ALICE, new JsonObject()).compose(id -> calls.send(id, ALICE, "PLEASE_SAMPLE").compose(result ->
      calls.toolResults(id, ALICE).map(results -> {
          ctx.verify(() -> {
            assertEquals("sampled twice", result.getString("answer"));
            assertEquals(2, results.size(), results::toString);
            assertTrue(results.get(0).contains("sampled-answer"), results.get(0));
            assertTrue(results.get(1).contains("maxCallsPerTurn"), results.get(1));
            // the sampling call's tokens count in the turn: three model calls of the loop plus one
            JsonObject turn = result.getJsonObject("usage").getJsonObject("turn");
            assertTrue(turn.getLong("output_tokens", turn.getLong("outputTokens", 0L)) > 0, turn::encode);
          });
          return null;
        }))).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aSamplingRequestThatNeedsApprovalWaitsForTheUserAndADenialReachesTheServer(Vertx vertx, VertxTestContext ctx) {
    calls.create(ALICE, new JsonObject()).compose(approved -> calls.create(ALICE, new JsonObject()).compose(denied ->
      sampleAnswered(vertx, approved, true).compose(a -> sampleAnswered(vertx, denied, false)).compose(d ->
        calls.toolResults(approved, ALICE).compose(ok -> calls.toolResults(denied, ALICE).map(no -> {
          ctx.verify(() -> {
            assertTrue(ok.get(0).contains("sampled-answer"), ok::toString);
            assertTrue(no.get(0).contains("The user denied") && no.get(0).contains("not now"), no::toString);
            assertTrue(!no.get(0).contains("sampled-answer"), "a denied request never reaches the model: " + no);
          });
          return null;
        })))))
      .onComplete(ctx.succeedingThenComplete());
  }

  /** Runs a PERMIT_SAMPLE turn in conversation {@code id}, answering its sampling approval with {@code approve}. */
  private static Future<JsonObject> sampleAnswered(Vertx vertx, String id, boolean approve) {
    return ServerRequestsApi.awaitEvent(vertx, id, type("approval_required")).compose(asked -> {
      Future<JsonObject> turn = calls.send(id, ALICE, "PERMIT_SAMPLE");
      return asked.compose(event -> {
        assertEquals("sampling", event.getString("kind"));
        assertEquals("sampling by server 'asked'", event.getString("name"));
        assertTrue(event.getJsonObject("arguments").encode().contains("sub-prompt"), event::encode);
        JsonObject answer = new JsonObject().put("approve", approve);
        if (!approve) {
          answer.put("reason", "not now");
        }
        return calls.post("/v1/conversations/" + id + "/approvals/" + event.getString("tool_use_id"), ALICE, answer);
      }).compose(r -> {
        assertEquals(200, r.statusCode(), r.bodyAsString());
        return turn;
      });
    });
  }
}
