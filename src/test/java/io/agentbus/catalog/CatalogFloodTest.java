package io.agentbus.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Addresses;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A server that floods tools-changed events costs a bounded number of catalog rebuilds. */
class CatalogFloodTest {

  private Vertx vertx;
  private ToolCatalog catalog;
  private final AtomicInteger rebuilds = new AtomicInteger();

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    catalog = new ToolCatalog(4);
    vertx.eventBus().localConsumer(Addresses.CATALOG_CHANGED, m -> rebuilds.incrementAndGet()).completion().await();
    vertx.deployVerticle(new CatalogVerticle(catalog, List.of())).await();
    rebuilds.set(0);
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  private static JsonObject event(String server, String... names) {
    JsonArray tools = new JsonArray();
    for (String n : names) {
      tools.add(new JsonObject().put("name", n).put("inputSchema", new JsonObject().put("type", "object")));
    }
    return new JsonObject().put("server", server).put("tools", tools);
  }

  /** Publishes from the test thread, then waits until the catalog holds {@code expected}. */
  private void awaitTool(String expected) throws Exception {
    Promise<Void> seen = Promise.promise();
    long timer = vertx.setPeriodic(5, t -> {
      if (catalog.current().byName(expected) != null) {
        seen.tryComplete();
      }
    });
    seen.future().await(10, TimeUnit.SECONDS);
    vertx.cancelTimer(timer);
  }

  @Test
  void repeatedIdenticalListsRebuildOnce() throws Exception {
    for (int i = 0; i < 1_000; i++) {
      vertx.eventBus().publish(Addresses.MCP_TOOLS_CHANGED_ALL, event("noisy", "same"));
    }
    vertx.eventBus().publish(Addresses.MCP_TOOLS_CHANGED_ALL, event("quiet", "marker"));
    awaitTool("mcp__quiet__marker");
    assertNotNull(catalog.current().byName("mcp__noisy__same"));
    assertTrue(rebuilds.get() <= 2, "rebuilds: " + rebuilds.get());
  }

  @Test
  void aFloodOfChangesIsCoalescedAndTheLastListWins() throws Exception {
    for (int i = 0; i < 1_000; i++) {
      vertx.eventBus().publish(Addresses.MCP_TOOLS_CHANGED_ALL, event("noisy", "t" + i));
    }
    awaitTool("mcp__noisy__t999");
    assertEquals(1, catalog.current().size());
    assertTrue(rebuilds.get() <= 3, "rebuilds: " + rebuilds.get());
  }
}
