package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.demo.DemoMcpServer;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serve} with an MCP server that answers {@code initialize} and then never answers
 * {@code tools/list} (connectTimeoutMs 60 s): it listens at once, /health answers 200 naming
 * that server not ready, a turn uses the demo server's tool, and a server that hung on its
 * first start is retried and joins the catalog.
 */
@Integration
@ExtendWith(VertxExtension.class)
class ServeStartupTest {

  private static final Logger LOG = LoggerFactory.getLogger(ServeStartupTest.class);
  private static final int STUCK_CONNECT_TIMEOUT_MS = 60_000;

  private final List<ServeChild> spawned = new CopyOnWriteArrayList<>();

  /** @return a pattern for the catalog's log line once a server's tools changed in it */
  static String catalogGot(String server) {
    return "catalog: version \\d+ with \\d+ tools \\(.*tools of '" + server + "' changed";
  }

  @AfterEach
  void killLeftovers() {
    spawned.forEach(ServeChild::kill);
  }

  /** @return an {@code mcpServers} entry that runs a test main class in a child JVM */
  private static JsonObject javaMain(Class<?> main, String... args) {
    JsonObject o = InteropServers.javaMain("unused", main, args).toJson();
    return new JsonObject().put("command", o.getString("command")).put("args", o.getJsonArray("args"));
  }

  @Test
  @Timeout(value = STUCK_CONNECT_TIMEOUT_MS * 3 / 4, timeUnit = TimeUnit.MILLISECONDS)
  void listensAtOnceWhileAServerHangsOnToolsListAndKeepsRetryingIt(Vertx vertx, VertxTestContext ctx, @TempDir Path dir)
      throws Exception {
    Path stuckStarts = dir.resolve("stuck-starts");
    Path lateStarts = dir.resolve("late-starts");
    JsonObject servers = new JsonObject()
      .put("demo", javaMain(DemoMcpServer.class))
      .put("stuck", javaMain(SlowListingServer.class, stuckStarts.toString(), "1000000")
        .put("connectTimeoutMs", STUCK_CONNECT_TIMEOUT_MS))
      .put("late", javaMain(SlowListingServer.class, lateStarts.toString(), "1")
        .put("connectTimeoutMs", 4_000).put("restart", new JsonObject().put("initialBackoffMs", 100)));
    Path mcp = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", servers).encode());
    Path agent = Files.writeString(dir.resolve("agent.json"),
      "{\"model\": {\"demo\": true, \"demoLatencyMs\": 50}, \"http\": {\"port\": 0}, \"drainTimeoutMs\": 5000}");
    long spawnedAt = System.nanoTime();
    ServeChild child = ServeChild.spawn(vertx, agent, mcp);
    spawned.add(child);
    WebClient web = WebClient.create(vertx);
    // well before the stuck server's connect timeout could fire
    vertx.setTimer(STUCK_CONNECT_TIMEOUT_MS * 2 / 3, t -> ctx.failNow(new AssertionError("no progress within "
      + STUCK_CONNECT_TIMEOUT_MS * 2 / 3 + " ms; output:\n" + child.output())));
    int[] port = new int[1];
    HttpResponse<?>[] first = new HttpResponse<?>[1];
    child.await("Agentbus listening on http://127.0.0.1:(\\d+)")
      .compose(m -> {
        LOG.info("serve listened {} ms after it was spawned", (System.nanoTime() - spawnedAt) / 1_000_000);
        port[0] = Integer.parseInt(m.group(1));
        return web.get(port[0], "127.0.0.1", "/health").send();
      })
      .compose(health -> {
        LOG.info("/health right after start-up: {} {}", health.statusCode(), health.bodyAsString());
        first[0] = health;
        return Future.all(child.await(catalogGot("demo")), child.await(catalogGot("late")));
      })
      .compose(v -> web.get(port[0], "127.0.0.1", "/v1/tools").send())
      .compose(tools -> web.post(port[0], "127.0.0.1", "/v1/conversations").sendJsonObject(new JsonObject())
        .compose(created -> web.post(port[0], "127.0.0.1", "/v1/conversations/"
            + created.bodyAsJsonObject().getString("id") + "/messages")
          .sendJsonObject(new JsonObject().put("content", "What is the weather in Rome?")))
        .compose(turn -> web.get(port[0], "127.0.0.1", "/health").send().map(later -> List.of(tools, turn, later))))
      .onComplete(ctx.succeeding(rs -> ctx.verify(() -> {
        HttpResponse<?> before = first[0];
        assertEquals(200, before.statusCode(), before.bodyAsString());
        JsonObject early = before.bodyAsJsonObject();
        assertEquals("DEGRADED", early.getString("status"), early.encode());
        assertTrue(early.getJsonArray("notReady").contains("stuck"), early.encode());
        JsonObject stuckEarly = early.getJsonObject("servers").getJsonObject("stuck");
        // still in its first attempt: serve did not wait for it to time out
        assertEquals("STARTING", stuckEarly.getString("status"), early.encode());
        assertEquals(0, stuckEarly.getInteger("restarts"), early.encode());
        assertFalse(stuckEarly.getBoolean("ready"));

        List<String> names = rs.get(0).bodyAsJsonObject().getJsonArray("tools").stream()
          .map(t -> ((JsonObject) t).getString("name")).toList();
        assertTrue(names.contains("mcp__late__echo"), names::toString);
        assertTrue(names.stream().anyMatch(n -> n.startsWith("mcp__demo__")), names::toString);
        assertFalse(names.stream().anyMatch(n -> n.startsWith("mcp__stuck__")), names::toString);

        HttpResponse<Buffer> turn = (HttpResponse<Buffer>) rs.get(1);
        assertEquals(200, turn.statusCode(), turn.bodyAsString());
        assertTrue(turn.bodyAsJsonObject().getString("answer").contains("Rome: partly cloudy"), turn.bodyAsString());
        assertFalse(turn.bodyAsJsonObject().getJsonArray("toolCalls", new JsonArray()).isEmpty(), turn.bodyAsString());

        HttpResponse<Buffer> after = (HttpResponse<Buffer>) rs.get(2);
        assertEquals(200, after.statusCode(), after.bodyAsString());
        JsonObject later = after.bodyAsJsonObject();
        assertEquals("DEGRADED", later.getString("status"));
        assertEquals(new JsonArray().add("stuck"), later.getJsonArray("notReady"), later.encode());
        JsonObject byServer = later.getJsonObject("servers");
        assertTrue(byServer.getJsonObject("demo").getBoolean("ready"), later.encode());
        assertTrue(byServer.getJsonObject("late").getBoolean("ready"), later.encode());
        assertTrue(byServer.getJsonObject("late").getInteger("restarts") >= 1, later.encode());
        assertEquals("listing tools", byServer.getJsonObject("stuck").getJsonObject("attempt").getString("phase"), later.encode());
        // the server that hung was started again and again until it listed its tools
        assertTrue(Files.readAllLines(lateStarts).size() >= 2);
        assertEquals(1, Files.readAllLines(stuckStarts).size());
        assertTrue(child.output().contains("MCP servers start in the background: demo, stuck, late"), child.output());
        ctx.completeNow();
      })));
  }
}
