package io.agentbus.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.Tenants;
import io.agentbus.mcp.SamplingOptions;
import io.agentbus.mcp.ServerRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The routing rule of a connection's server requests: the named call, else the one conversation
 * in flight, else decline (elicitation) / refuse (sampling) with the reason; roots per caller.
 */
@ExtendWith(VertxExtension.class)
class ServerRequestsTest {

  private static final String CALLER = "test.caller";
  private static final JsonObject SCHEMA = new JsonObject().put("type", "object")
    .put("properties", new JsonObject().put("x", new JsonObject().put("type", "string")));
  private static final JsonArray SERVER_ROOTS = new JsonArray().add(new JsonObject().put("uri", "file:///srv"));

  private final List<String> notified = new CopyOnWriteArrayList<>();

  private ServerRequests requests(Vertx vertx, boolean sampling) {
    return new ServerRequests(vertx, new McpServerOptions().setName("s").setCommand("x").setRoots(SERVER_ROOTS)
      .setSampling(new SamplingOptions(sampling, 10, 1, "never")), notified::add);
  }

  private static ToolCallRequest call(String conversation, JsonArray roots) {
    JsonObject body = new JsonObject().put("name", "t").put("toolUseId", "tu-" + conversation);
    if (conversation != null) {
      body.put("conversationId", conversation).put("callerAddress", CALLER);
    }
    if (roots != null) {
      body.put("roots", roots);
    }
    return ToolCallRequest.parse(body);
  }

  private static ServerRequests.Caller begin(ServerRequests r, ToolCallRequest req) {
    return r.begin(req, System.nanoTime() + 10_000_000_000L);
  }

  private static ServerRequest elicit(Object caller) {
    return new ServerRequest("elicitation/create", new JsonObject().put("message", "m").put("requestedSchema", SCHEMA), caller);
  }

  /** The conversation side: answers every elicit with the conversation id it was asked for. */
  private static Future<List<JsonObject>> answering(Vertx vertx) {
    List<JsonObject> asked = new CopyOnWriteArrayList<>();
    return vertx.eventBus().<JsonObject>consumer(CALLER, m -> {
      asked.add(m.body());
      assertEquals(Actions.ELICIT, m.headers().get(Actions.HEADER));
      m.reply(new JsonObject().put("action", "accept").put("content", new JsonObject().put("x", m.body().getString("conversationId"))));
    }).completion().map(v -> asked);
  }

  private static String reason(JsonObject result) {
    return result.getJsonObject("_meta", new JsonObject()).getString(ServerRequests.REASON_META, "");
  }

  @Test
  void outsideAnyCallAnElicitationIsDeclinedWithTheReason(Vertx vertx, VertxTestContext ctx) {
    requests(vertx, false).handle(elicit(null)).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals("decline", r.getString("action"));
      assertTrue(reason(r).contains("outside any tool call"), r::encode);
      ctx.completeNow();
    })));
  }

  @Test
  void callsOfSeveralConversationsNeedTheCallNamed(Vertx vertx, VertxTestContext ctx) {
    ServerRequests r = requests(vertx, false);
    begin(r, call("c1", null));
    ServerRequests.Caller second = begin(r, call("c2", null));
    answering(vertx).compose(asked -> r.handle(elicit(null)).compose(unnamed -> r.handle(elicit(second)).map(named -> {
      ctx.verify(() -> {
        assertEquals("decline", unnamed.getString("action"));
        assertTrue(reason(unnamed).contains("several conversations"), unnamed::encode);
        assertEquals("accept", named.getString("action"));
        assertEquals("c2", named.getJsonObject("content").getString("x"));
        assertEquals(1, asked.size());
        assertEquals("tu-c2", asked.get(0).getString("toolUseId"));
        assertEquals(SCHEMA, asked.get(0).getJsonObject("requestedSchema"));
      });
      return null;
    }))).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void callsOfOneConversationAreRoutedWithoutANameAndEndedCallsNoLonger(Vertx vertx, VertxTestContext ctx) {
    ServerRequests r = requests(vertx, false);
    begin(r, call("c1", null));
    ServerRequests.Caller other = begin(r, call("c1", null));
    answering(vertx).compose(asked -> r.handle(elicit(null)).compose(routed -> {
      r.end(other);
      return r.handle(elicit(other)).map(stale -> {
        ctx.verify(() -> {
          assertEquals("accept", routed.getString("action"));
          // a named call that has ended: the one left in flight (same conversation) is asked
          assertEquals("accept", stale.getString("action"));
          assertEquals(2, asked.size());
        });
        return null;
      });
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aCallNotMadeByAConversationHasNoUserToAsk(Vertx vertx, VertxTestContext ctx) {
    ServerRequests r = requests(vertx, false);
    ServerRequests.Caller c = begin(r, call(null, null));
    r.handle(elicit(c)).onComplete(ctx.succeeding(res -> ctx.verify(() -> {
      assertEquals("decline", res.getString("action"));
      assertTrue(reason(res).contains("not made by a conversation"), res::encode);
      ctx.completeNow();
    })));
  }

  @Test
  void malformedOrUrlModeElicitationsAreInvalidParams(Vertx vertx, VertxTestContext ctx) {
    ServerRequests r = requests(vertx, false);
    r.handle(new ServerRequest("elicitation/create", new JsonObject().put("mode", "url").put("message", "m"), null))
      .transform(url -> r.handle(new ServerRequest("elicitation/create", new JsonObject().put("message", "m")
        .put("requestedSchema", new JsonObject().put("type", "object").put("properties", new JsonObject()
          .put("deep", new JsonObject().put("type", "object")))), null)).transform(nested -> {
            ctx.verify(() -> {
              assertEquals(-32602, ((McpException) url.cause()).rpcCode());
              assertEquals(-32602, ((McpException) nested.cause()).rpcCode());
              assertTrue(nested.cause().getMessage().contains("'deep'"));
            });
            return Future.succeededFuture();
          }))
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void samplingIsRefusedWhenDisabledOrOutsideAConversationsCall(Vertx vertx, VertxTestContext ctx) {
    ServerRequest sample = new ServerRequest("sampling/createMessage", new JsonObject(), null);
    requests(vertx, false).handle(sample).transform(disabled -> requests(vertx, true).handle(sample).transform(outside -> {
      ctx.verify(() -> {
        assertEquals(-32601, ((McpException) disabled.cause()).rpcCode());
        assertEquals(-1, ((McpException) outside.cause()).rpcCode());
        assertTrue(outside.cause().getMessage().contains("outside any tool call"), outside.cause().getMessage());
      });
      return Future.succeededFuture();
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void capabilitiesDeclareSamplingOnlyWhenEnabled(Vertx vertx) {
    assertEquals(new JsonObject().put("roots", new JsonObject().put("listChanged", true))
      .put("elicitation", new JsonObject().put("form", new JsonObject())), requests(vertx, false).capabilities());
    assertTrue(requests(vertx, true).capabilities().containsKey("sampling"));
  }

  @Test
  void rootsAreTheCallingConversationsElseTheServers(Vertx vertx, VertxTestContext ctx) {
    ServerRequests r = requests(vertx, false);
    JsonArray own = new JsonArray().add(new JsonObject().put("uri", "file:///own"));
    ServerRequests.Caller withOwn = begin(r, call("c1", own));
    r.handle(new ServerRequest("roots/list", null, withOwn)).compose(ofConversation -> {
      r.end(withOwn);
      ServerRequests.Caller plain = begin(r, call("c2", null));
      return r.handle(new ServerRequest("roots/list", null, plain))
        .compose(server -> r.handle(new ServerRequest("roots/list", null, null)).map(unnamed -> {
          ctx.verify(() -> {
            assertEquals(own, ofConversation.getJsonArray("roots"));
            assertEquals(SERVER_ROOTS, server.getJsonArray("roots"));
            assertEquals(SERVER_ROOTS, unnamed.getJsonArray("roots"));
            // told when the conversation's roots replaced the server's, and when they were back
            assertEquals(List.of("notifications/roots/list_changed", "notifications/roots/list_changed"), notified);
          });
          return null;
        }));
    }).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aTenantsRootsReplaceTheServersForItsCallsAndAConversationsWinOverBoth(Vertx vertx, VertxTestContext ctx) {
    JsonArray acmeRoots = new JsonArray().add(new JsonObject().put("uri", "file:///data/acme").put("name", "acme"));
    Tenants tenants = Tenants.fromJson(new JsonObject().put("acme", new JsonObject()
      .put("roots", new JsonObject().put("s", acmeRoots))), "agent.json");
    ServerRequests r = new ServerRequests(vertx, new McpServerOptions().setName("s").setCommand("x").setRoots(SERVER_ROOTS),
      tenants, notified::add);
    JsonArray own = new JsonArray().add(new JsonObject().put("uri", "file:///own"));
    ServerRequests.Caller acme = begin(r, ToolCallRequest.parse(new JsonObject().put("name", "t").put("tenant", "acme")
      .put("conversationId", "c1").put("callerAddress", CALLER)));
    r.handle(new ServerRequest("roots/list", null, acme)).compose(ofAcme -> {
      r.end(acme);
      ServerRequests.Caller globex = begin(r, ToolCallRequest.parse(new JsonObject().put("name", "t").put("tenant", "globex")
        .put("conversationId", "c2").put("callerAddress", CALLER)));
      return r.handle(new ServerRequest("roots/list", null, globex)).compose(ofGlobex -> {
        r.end(globex);
        ServerRequests.Caller acmeOwn = begin(r, ToolCallRequest.parse(new JsonObject().put("name", "t").put("tenant", "acme")
          .put("conversationId", "c3").put("callerAddress", CALLER).put("roots", own)));
        return r.handle(new ServerRequest("roots/list", null, acmeOwn)).map(ofConversation -> {
          ctx.verify(() -> {
            assertEquals(acmeRoots, ofAcme.getJsonArray("roots"));
            assertEquals(SERVER_ROOTS, ofGlobex.getJsonArray("roots"), "a tenant without roots gets the server's");
            assertEquals(own, ofConversation.getJsonArray("roots"));
            assertEquals(3, notified.size(), "told at each change: " + notified);
          });
          return null;
        });
      });
    }).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aTenantsRootsAreCheckedLikeTheServers() {
    io.agentbus.options.ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(io.agentbus.options.ConfigException.class,
      () -> Tenants.fromJson(new JsonObject().put("acme", new JsonObject().put("roots", new JsonObject()
        .put("s", new JsonArray().add(new JsonObject().put("uri", "https://not-a-file"))))), "agent.json"));
    assertTrue(e.getMessage().contains("tenants.acme.roots.s") && e.getMessage().contains("file://"), e.getMessage());
  }
}
