package io.agentbus.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The catalog verticle against fake server consumers on the bus contract. */
@ExtendWith(VertxExtension.class)
class CatalogVerticleTest {

  private static JsonArray tools(String... names) {
    JsonArray out = new JsonArray();
    for (String n : names) {
      out.add(new JsonObject().put("name", n).put("description", "d " + n)
        .put("inputSchema", new JsonObject().put("type", "object")));
    }
    return out;
  }

  private static void fakeServer(Vertx vertx, String server, JsonArray tools) {
    vertx.eventBus().<JsonObject>localConsumer(Addresses.mcp(server), m ->
      m.reply(new JsonObject().put("server", server).put("status", "READY").put("tools", tools)));
  }

  private static Future<JsonObject> changed(Vertx vertx, Predicate<JsonArray> names) {
    Promise<JsonObject> p = Promise.promise();
    var c = vertx.eventBus().<JsonObject>localConsumer(Addresses.CATALOG_CHANGED);
    c.handler(m -> {
      if (names.test(m.body().getJsonArray("tools"))) {
        c.unregister();
        p.tryComplete(m.body());
      }
    });
    return c.completion().compose(v -> p.future());
  }

  @Test
  void buildsFromListsThenFollowsEvents(Vertx vertx, VertxTestContext ctx) {
    ToolCatalog catalog = new ToolCatalog(4);
    fakeServer(vertx, "a", tools("one", "two.x"));
    vertx.deployVerticle(new CatalogVerticle(catalog, List.of("a", "missing")))
      .compose(id -> {
        CatalogSnapshot first = catalog.current();
        ctx.verify(() -> {
          assertEquals(2, first.size());
          assertNotNull(first.byName("mcp__a__two_x"));
          assertEquals("two.x", first.byName("mcp__a__two_x").tool());
        });
        Future<JsonObject> joined = changed(vertx, n -> n.contains("mcp__missing__late"));
        vertx.eventBus().publish(Addresses.MCP_TOOLS_CHANGED_ALL, new JsonObject().put("server", "missing").put("tools", tools("late")));
        return joined.map(first);
      })
      .compose(first -> {
        ctx.verify(() -> {
          assertEquals(3, catalog.current().size());
          assertSame(first, catalog.version(first.version()), "older versions are retained");
        });
        Future<JsonObject> gone = changed(vertx, n -> !n.contains("mcp__a__one"));
        vertx.eventBus().publish(Addresses.MCP_STATUS_ALL, new JsonObject().put("server", "a").put("status", "STOPPED"));
        return gone;
      })
      .onComplete(ctx.succeeding(event -> ctx.verify(() -> {
        assertEquals(List.of("mcp__missing__late"), event.getJsonArray("tools").getList());
        assertNull(catalog.current().byName("mcp__a__one"));
        ctx.completeNow();
      })));
  }

  @Test
  void aListReplyOlderThanAnEventIsIgnored(Vertx vertx, VertxTestContext ctx) {
    ToolCatalog catalog = new ToolCatalog();
    vertx.eventBus().<JsonObject>localConsumer(Addresses.mcp("racy"), m -> {
      // The tool list changes while this (stale) reply is on its way.
      vertx.eventBus().publish(Addresses.MCP_TOOLS_CHANGED_ALL, new JsonObject().put("server", "racy").put("tools", tools("fresh")));
      m.reply(new JsonObject().put("server", "racy").put("tools", tools("stale")));
    });
    vertx.deployVerticle(new CatalogVerticle(catalog, List.of("racy")))
      .onComplete(ctx.succeeding(id -> ctx.verify(() -> {
        assertNotNull(catalog.current().byName("mcp__racy__fresh"));
        assertNull(catalog.current().byName("mcp__racy__stale"));
        ctx.completeNow();
      })));
  }

  @Test
  void getServesProjectionsAndRejectsBadRequests(Vertx vertx, VertxTestContext ctx) {
    ToolCatalog catalog = new ToolCatalog();
    fakeServer(vertx, "s", tools("t"));
    DeliveryOptions get = new DeliveryOptions().addHeader(Actions.HEADER, Actions.CATALOG_GET);
    var checks = ctx.checkpoint(3);
    vertx.deployVerticle(new CatalogVerticle(catalog, List.of("s"))).onComplete(ctx.succeeding(id -> {
      vertx.eventBus().<JsonObject>request(Addresses.CATALOG, new JsonObject().put("provider", "openai"), get)
        .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
          JsonObject fn = m.body().getJsonArray("tools").getJsonObject(0);
          assertEquals("function", fn.getString("type"));
          assertEquals("mcp__s__t", fn.getJsonObject("function").getString("name"));
          assertTrue(m.body().getLong("version") >= 1);
          checks.flag();
        })));
      vertx.eventBus().request(Addresses.CATALOG, new JsonObject().put("provider", "gemini"), get)
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          assertEquals(FailureCodes.BAD_REQUEST, ((ReplyException) err).failureCode());
          checks.flag();
        })));
      vertx.eventBus().request(Addresses.CATALOG, new JsonObject(), new DeliveryOptions().addHeader(Actions.HEADER, "put"))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          assertEquals(FailureCodes.NOT_FOUND, ((ReplyException) err).failureCode());
          checks.flag();
        })));
    }));
  }
}
