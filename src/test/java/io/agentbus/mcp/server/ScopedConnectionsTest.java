package io.agentbus.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Scope;
import io.agentbus.mcp.Tenants;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.WhoAmIServer;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scoped connections over real stdio children ({@link WhoAmIServer}, which reports the tenant
 * and secret it was started with, and its pid): one child per tenant or conversation, each
 * with its own values, missing values refused before anything starts, idle and LRU closes
 * (the child exits), and undeploy closing them all.
 */
@Integration
@ExtendWith(VertxExtension.class)
@Timeout(value = 120, timeUnit = TimeUnit.SECONDS)
class ScopedConnectionsTest {

  static final Tenants TENANTS = Tenants.of(Map.of(
    "acme", Map.of("TOKEN", "acme-secret-1"),
    "globex", Map.of("TOKEN", "globex-secret-2"),
    "initech", Map.of("TOKEN", "initech-secret-3"),
    "nosecret", Map.of(),
    "broken", Map.of("TOKEN", "exit")));

  static McpServerOptions who(String name, Scope scope) {
    return InteropServers.javaMain(name, WhoAmIServer.class).setScope(scope)
      .setEnv(Map.of("WHO_TENANT", "${tenant.id}", "WHO_SECRET", "${tenant.secret.TOKEN}"));
  }

  static Future<String> deploy(Vertx vertx, McpServerOptions options) {
    return vertx.deployVerticle(new McpServerVerticle().setTenants(TENANTS), new DeploymentOptions().setConfig(options.toJson()));
  }

  /** Calls whoami as the tenant (and conversation); completes with what the child reported. */
  static Future<JsonObject> whoami(Vertx vertx, String server, String tenant, String conversation, long delayMs) {
    JsonObject body = new JsonObject().put("name", "whoami").put("arguments", new JsonObject().put("delayMs", delayMs));
    if (tenant != null) {
      body.put("tenant", tenant);
    }
    if (conversation != null) {
      body.put("conversationId", conversation);
    }
    return vertx.eventBus().<JsonObject>request(Addresses.mcp(server), body,
        new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_CALL).setSendTimeout(60_000))
      .map(m -> new JsonObject(m.body().getJsonArray("content").getJsonObject(0).getString("text")));
  }

  static Future<JsonObject> status(Vertx vertx, String server) {
    return vertx.eventBus().<JsonObject>request(Addresses.mcp(server), new JsonObject(),
      new DeliveryOptions().addHeader(Actions.HEADER, Actions.STATUS)).map(m -> m.body());
  }

  /** Completes when the process has exited (at once if it is gone already). */
  static Future<Void> exited(Vertx vertx, long pid) {
    return ProcessHandle.of(pid).map(p -> Future.fromCompletionStage(p.onExit(), vertx.getOrCreateContext()).<Void>mapEmpty())
      .orElse(Future.succeededFuture());
  }

  /** Completes once the server's status shows a scoped connection in use (asked again every 20 ms). */
  static Future<Void> inUse(Vertx vertx, String server) {
    return status(vertx, server).compose(st -> st.getJsonObject("scoped").getInteger("inUse") > 0
      ? Future.succeededFuture()
      : Future.<Void>future(p -> vertx.setTimer(20, t -> inUse(vertx, server).onComplete(p))));
  }

  static ReplyException failure(Throwable err) {
    return assertInstanceOf(ReplyException.class, err);
  }

  @Test
  void eachTenantGetsItsOwnChildWithItsOwnValuesConcurrentCallsIncluded(Vertx vertx, VertxTestContext ctx) {
    deploy(vertx, who("who", Scope.TENANT)).compose(id -> {
      List<Future<JsonObject>> calls = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        calls.add(whoami(vertx, "who", "acme", null, 300));
        calls.add(whoami(vertx, "who", "globex", null, 300));
      }
      return Future.all(calls).map(v -> calls);
    }).compose(calls -> status(vertx, "who").map(st -> {
      ctx.verify(() -> {
        Set<Long> acmePids = new HashSet<>();
        Set<Long> globexPids = new HashSet<>();
        for (int i = 0; i < calls.size(); i++) {
          JsonObject me = calls.get(i).result();
          boolean acme = i % 2 == 0;
          assertEquals(acme ? "acme" : "globex", me.getString("tenant"));
          assertEquals(acme ? "acme-secret-1" : "globex-secret-2", me.getString("secret"));
          (acme ? acmePids : globexPids).add(me.getLong("pid"));
        }
        assertEquals(1, acmePids.size(), "one connection per tenant: " + acmePids);
        assertEquals(1, globexPids.size(), "one connection per tenant: " + globexPids);
        assertNotEquals(acmePids, globexPids);
        assertEquals("READY", st.getString("status"));
        assertEquals(2, st.getInteger("toolCount"), "whoami and die");
        assertEquals(2, st.getJsonObject("scoped").getInteger("connections"));
        assertEquals("tenant", st.getJsonObject("scoped").getString("scope"));
        assertFalse(st.encode().contains("secret-"), "no secret in the status: " + st.encode());
      });
      return st;
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aCallWithoutTenantOrWithoutTheSecretFailsAndOpensNothing(Vertx vertx, VertxTestContext ctx) {
    deploy(vertx, who("who-missing", Scope.TENANT))
      .compose(id -> whoami(vertx, "who-missing", null, null, 0).transform(ar -> {
        ctx.verify(() -> {
          ReplyException e = failure(ar.cause());
          assertEquals(FailureCodes.FORBIDDEN, e.failureCode());
          assertTrue(e.getMessage().startsWith(McpServerVerticle.NOT_STARTED), e.getMessage());
          assertTrue(e.getMessage().contains("names no tenant"), e.getMessage());
        });
        return whoami(vertx, "who-missing", "nosecret", null, 0);
      }))
      .transform(ar -> {
        ctx.verify(() -> {
          ReplyException e = failure(ar.cause());
          assertEquals(FailureCodes.FORBIDDEN, e.failureCode());
          assertTrue(e.getMessage().contains("tenant 'nosecret' has no secret 'TOKEN'"), e.getMessage());
          assertFalse(e.getMessage().contains("secret-"), "another tenant's value leaked: " + e.getMessage());
        });
        return whoami(vertx, "who-missing", "stranger", null, 0);
      })
      .transform(ar -> {
        ctx.verify(() -> assertTrue(failure(ar.cause()).getMessage().contains("tenant 'stranger' has no secret 'TOKEN'"),
          ar.cause().getMessage()));
        return status(vertx, "who-missing");
      })
      .onComplete(ctx.succeeding(st -> ctx.verify(() -> {
        assertEquals(0, st.getJsonObject("scoped").getInteger("connections"));
        assertEquals(0, st.getJsonObject("scoped").getInteger("starting"));
        ctx.completeNow();
      })));
  }

  @Test
  void eachConversationGetsItsOwnChild(Vertx vertx, VertxTestContext ctx) {
    deploy(vertx, who("who-conv", Scope.CONVERSATION)).compose(id -> {
      List<Future<JsonObject>> calls = List.of(
        whoami(vertx, "who-conv", "acme", "c1", 200), whoami(vertx, "who-conv", "acme", "c1", 200),
        whoami(vertx, "who-conv", "acme", "c2", 0), whoami(vertx, "who-conv", "globex", "c1", 0));
      return Future.all(calls).map(v -> calls);
    }).compose(calls -> whoami(vertx, "who-conv", "acme", null, 0).transform(noConversation -> {
      ctx.verify(() -> {
        JsonObject a1 = calls.get(0).result();
        JsonObject a1again = calls.get(1).result();
        JsonObject a2 = calls.get(2).result();
        JsonObject g1 = calls.get(3).result();
        assertEquals(a1.getLong("pid"), a1again.getLong("pid"));
        assertEquals(3, Set.of(a1.getLong("pid"), a2.getLong("pid"), g1.getLong("pid")).size());
        assertEquals("acme", a2.getString("tenant"));
        assertEquals("acme-secret-1", a2.getString("secret"));
        // the same conversation id under another tenant is another connection, with its values
        assertEquals("globex", g1.getString("tenant"));
        assertEquals("globex-secret-2", g1.getString("secret"));
        ReplyException e = failure(noConversation.cause());
        assertEquals(FailureCodes.FORBIDDEN, e.failureCode());
        assertTrue(e.getMessage().contains("names no conversation"), e.getMessage());
      });
      return Future.succeededFuture();
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void anIdleConnectionClosesAndItsChildExits(Vertx vertx, VertxTestContext ctx) {
    deploy(vertx, who("who-idle", Scope.TENANT).setIdleTimeoutMs(300))
      .compose(id -> whoami(vertx, "who-idle", "acme", null, 0))
      .compose(me -> exited(vertx, me.getLong("pid")).map(me))
      .compose(me -> status(vertx, "who-idle").compose(st -> {
        ctx.verify(() -> assertEquals(0, st.getJsonObject("scoped").getInteger("connections")));
        return whoami(vertx, "who-idle", "acme", null, 0).map(again -> {
          ctx.verify(() -> {
            assertNotEquals(me.getLong("pid"), again.getLong("pid"), "reopened on the next call");
            assertEquals("acme", again.getString("tenant"));
          });
          return again;
        });
      }))
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aDeletedConversationsConnectionClosesAtOnceAndOnlyItsOwn(Vertx vertx, VertxTestContext ctx) {
    // an idle timeout far beyond the test's: only the deletion can close the connection
    deploy(vertx, who("who-del", Scope.CONVERSATION).setIdleTimeoutMs(600_000))
      .compose(id -> Future.all(whoami(vertx, "who-del", "acme", "c1", 0), whoami(vertx, "who-del", "acme", "c2", 0),
        whoami(vertx, "who-del", "globex", "c1", 0)))
      .compose(all -> {
        JsonObject c1 = all.resultAt(0);
        vertx.eventBus().publish(Addresses.CONVERSATION_DELETED, new JsonObject().put("id", "c1").put("tenant", "acme"));
        return exited(vertx, c1.getLong("pid")).map(all);
      })
      .compose(all -> status(vertx, "who-del").map(st -> {
        ctx.verify(() -> {
          assertEquals(2, st.getJsonObject("scoped").getInteger("connections"), "acme/c2 and globex/c1 stay open");
          JsonObject c2 = all.resultAt(1);
          JsonObject g1 = all.resultAt(2);
          assertTrue(ProcessHandle.of(c2.getLong("pid")).map(ProcessHandle::isAlive).orElse(false));
          assertTrue(ProcessHandle.of(g1.getLong("pid")).map(ProcessHandle::isAlive).orElse(false));
        });
        return all;
      }))
      // a connection busy with a call when its conversation is deleted closes when the call ends
      .compose(all -> {
        Future<JsonObject> running = whoami(vertx, "who-del", "acme", "c2", 2_000);
        return inUse(vertx, "who-del")
          .compose(v -> {
            vertx.eventBus().publish(Addresses.CONVERSATION_DELETED, new JsonObject().put("id", "c2").put("tenant", "acme"));
            return running;
          })
          .compose(me -> {
            JsonObject before = all.resultAt(1);
            ctx.verify(() -> assertEquals(before.getLong("pid"), me.getLong("pid"), "the call ran on the open connection"));
            return exited(vertx, me.getLong("pid")).map(me);
          });
      })
      .compose(me -> status(vertx, "who-del").map(st -> {
        ctx.verify(() -> assertEquals(1, st.getJsonObject("scoped").getInteger("connections")));
        return st;
      }))
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void atTheCapTheLeastRecentlyUsedIdleConnectionClosesAndBusyOnesAreNeverClosed(Vertx vertx, VertxTestContext ctx) {
    String s = "who-cap";
    deploy(vertx, who(s, Scope.TENANT).setMaxConnections(2))
      .compose(id -> whoami(vertx, s, "acme", null, 0))
      .compose(acme -> whoami(vertx, s, "globex", null, 0)
        .compose(globex -> whoami(vertx, s, "acme", null, 0)) // acme is now the most recently used
        .compose(v -> whoami(vertx, s, "initech", null, 0))
        .compose(initech -> status(vertx, s).map(st -> {
          ctx.verify(() -> assertEquals(2, st.getJsonObject("scoped").getInteger("connections")));
          return initech;
        })))
      .compose(initech -> {
        // acme and initech are held busy: a third tenant finds no idle connection to close
        Future<JsonObject> a = whoami(vertx, s, "acme", null, 3000);
        Future<JsonObject> i = whoami(vertx, s, "initech", null, 3000);
        return vertx.timer(500).compose(t -> whoami(vertx, s, "globex", null, 0).transform(ar -> {
          ctx.verify(() -> {
            ReplyException e = failure(ar.cause());
            assertEquals(FailureCodes.QUEUE_FULL, e.failureCode());
            assertTrue(e.getMessage().contains("every one is in use"), e.getMessage());
          });
          return Future.all(a, i);
        }));
      })
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void theLeastRecentlyUsedChildExitsWhenANewTenantArrivesAtTheCap(Vertx vertx, VertxTestContext ctx) {
    String s = "who-lru";
    deploy(vertx, who(s, Scope.TENANT).setMaxConnections(2))
      .compose(id -> whoami(vertx, s, "acme", null, 0))
      .compose(acme -> whoami(vertx, s, "globex", null, 0)
        .compose(globex -> whoami(vertx, s, "initech", null, 0)
          .compose(initech -> exited(vertx, acme.getLong("pid")))
          .map(v -> {
            ctx.verify(() -> assertTrue(ProcessHandle.of(globex.getLong("pid")).isPresent(), "globex was used later"));
            return v;
          })))
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void undeployClosesEveryScopedConnection(Vertx vertx, VertxTestContext ctx) {
    deploy(vertx, who("who-stop", Scope.CONVERSATION))
      .compose(id -> Future.all(whoami(vertx, "who-stop", "acme", "x", 0), whoami(vertx, "who-stop", "acme", "y", 0))
        .compose(all -> vertx.undeploy(id).map(all)))
      .compose(all -> {
        long p1 = all.<JsonObject>resultAt(0).getLong("pid");
        long p2 = all.<JsonObject>resultAt(1).getLong("pid");
        ctx.verify(() -> {
          assertFalse(ProcessHandle.of(p1).map(ProcessHandle::isAlive).orElse(false), "child " + p1 + " still runs");
          assertFalse(ProcessHandle.of(p2).map(ProcessHandle::isAlive).orElse(false), "child " + p2 + " still runs");
        });
        return Future.succeededFuture();
      })
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aTenantPlaceholderInASharedServerStopsTheDeployment(Vertx vertx, VertxTestContext ctx) {
    deploy(vertx, who("who-shared", Scope.SHARED)).onComplete(ctx.failing(err -> ctx.verify(() -> {
      assertTrue(err.getMessage().contains("server 'who-shared': field 'env."), err.getMessage());
      assertTrue(err.getMessage().contains("scope is 'shared'"), err.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void aTenantWhoseServerCannotStartFailsAloneAndWaitsForItsBackoff(Vertx vertx, VertxTestContext ctx) {
    String s = "who-broken";
    deploy(vertx, who(s, Scope.TENANT).setRestartInitialBackoffMs(60_000))
      .compose(id -> whoami(vertx, s, "broken", null, 0).transform(ar -> {
        ctx.verify(() -> {
          ReplyException e = failure(ar.cause());
          assertEquals(FailureCodes.UNAVAILABLE, e.failureCode());
          assertTrue(e.getMessage().startsWith(McpServerVerticle.NOT_STARTED + "server 'who-broken' for tenant 'broken' failed"
            + " to start"), e.getMessage());
        });
        return whoami(vertx, s, "broken", null, 0);
      }))
      .transform(ar -> {
        ctx.verify(() -> {
          ReplyException e = failure(ar.cause());
          assertEquals(FailureCodes.UNAVAILABLE, e.failureCode());
          assertTrue(e.getMessage().contains("next attempt in"), "no new child within the backoff: " + e.getMessage());
        });
        return whoami(vertx, s, "acme", null, 0);
      })
      .compose(acme -> status(vertx, s).map(st -> {
        ctx.verify(() -> {
          assertEquals("acme", acme.getString("tenant"));
          assertEquals(1, st.getJsonObject("scoped").getInteger("connections"));
          assertEquals(1, st.getJsonObject("scoped").getInteger("failed"));
          assertEquals("READY", st.getString("status"), "the listing connection is not the broken tenant's");
        });
        return st;
      }))
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aConnectionThatCrashesFailsItsCallAndReopensOnTheNextOne(Vertx vertx, VertxTestContext ctx) {
    String s = "who-crash";
    JsonObject die = new JsonObject().put("name", "die").put("arguments", new JsonObject()).put("tenant", "acme");
    // stable after 1 ms: the crash does not count as a failed start, so no backoff
    vertx.deployVerticle(new McpServerVerticle(null, 1).setTenants(TENANTS),
        new DeploymentOptions().setConfig(who(s, Scope.TENANT).toJson()))
      .compose(id -> whoami(vertx, s, "acme", null, 0))
      .compose(before -> vertx.eventBus().request(Addresses.mcp(s), die,
          new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_CALL)).transform(ar -> {
        ctx.verify(() -> {
          ReplyException e = failure(ar.cause());
          assertEquals(FailureCodes.UNAVAILABLE, e.failureCode());
          assertTrue(e.getMessage().contains("exited"), e.getMessage());
        });
        return exited(vertx, before.getLong("pid")).compose(v -> whoami(vertx, s, "acme", null, 0));
      }).map(after -> {
        ctx.verify(() -> {
          assertNotEquals(before.getLong("pid"), after.getLong("pid"));
          assertEquals("acme-secret-1", after.getString("secret"));
        });
        return after;
      }))
      .onComplete(ctx.succeedingThenComplete());
  }
}
