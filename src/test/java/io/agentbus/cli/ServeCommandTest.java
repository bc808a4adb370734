package io.agentbus.cli;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.demo.DemoMcpServer;
import io.agentbus.sse.SseEvent;
import io.agentbus.sse.SseParser;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} as users run it: a separate JVM with the demo model and the demo MCP
 * server, a conversation over HTTP once the demo server is ready, then SIGTERM while a turn
 * runs.
 */
@Integration
@ExtendWith(VertxExtension.class)
class ServeCommandTest {

  private final List<ServeChild> spawned = new CopyOnWriteArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void killLeftovers() {
    spawned.forEach(ServeChild::kill);
  }

  @Test
  void servesADemoConversationAndDrainsOnSigterm(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) throws Exception {
    JsonObject demo = InteropServers.javaMain("demo", DemoMcpServer.class).toJson();
    Path mcp = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("demo", new JsonObject().put("command", demo.getString("command")).put("args", demo.getJsonArray("args")))).encode());
    Path agent = Files.writeString(dir.resolve("agent.json"),
      "{\"model\": {\"demo\": true, \"demoLatencyMs\": 300}, \"http\": {\"port\": 0}, \"drainTimeoutMs\": 20000}");
    ServeChild child = ServeChild.spawn(vertx, agent, mcp);
    spawned.add(child);
    Process serve = child.process;
    HttpClient http = vertx.createHttpClient();
    List<String> events = new CopyOnWriteArrayList<>();
    Promise<Void> done = Promise.promise();
    vertx.setTimer(25_000, t -> ctx.failNow(new AssertionError("stuck; events " + events + "; output:\n"
      + child.output())));
    // serve listens without waiting for its MCP servers: wait for the demo server's tools
    child.await("Agentbus listening on http://127.0.0.1:(\\d+)")
      .compose(m -> child.await(ServeStartupTest.catalogGot("demo")).map(m))
      .compose(m -> {
        int port = Integer.parseInt(m.group(1));
        RequestOptions create = new RequestOptions().setMethod(HttpMethod.POST).setPort(port).setHost("127.0.0.1")
          .setURI("/v1/conversations").putHeader("content-type", "application/json");
        return http.request(create).compose(req -> req.send("{}")).compose(HttpClientResponse::body)
          .map(b -> new JsonObject(b).getString("id"))
          .compose(id -> http.request(new RequestOptions(create).setURI("/v1/conversations/" + id + "/messages")
            .putHeader("accept", "text/event-stream")))
          .compose(req -> {
            // attach the listener before sending, so no event can arrive before the parser
            req.response().onSuccess(resp -> {
              SseParser parser = SseParser.create();
              parser.handler((SseEvent e) -> {
                events.add(e.event());
                if ("turn_started".equals(e.event())) {
                  serve.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our pipes
                }
                if ("done".equals(e.event())) {
                  events.add(e.data());
                  done.tryComplete();
                }
              });
              resp.handler(parser::handle);
            }).onFailure(done::tryFail);
            return req.end("{\"content\": \"What is the weather in Rome?\"}").map(port);
          });
      })
      .compose(port -> done.future())
      .compose(v -> child.await("Agentbus stopped"))
      .compose(v -> vertx.executeBlocking(serve::waitFor))
      .onComplete(ctx.succeeding(exit -> ctx.verify(() -> {
        String all = child.output();
        assertTrue(events.contains("tool_call_finished"), events::toString);
        assertTrue(events.get(events.size() - 1).contains("Rome: partly cloudy"), events::toString);
        assertTrue(all.contains("stopping: refusing new turns"), all);
        assertTrue(all.contains("[demo] stopped (exit code 0)"), all);
        assertEquals(143, exit, "killed by SIGTERM after a clean shutdown");
        ctx.completeNow();
      })));
  }
}
