package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.demo.DemoMcpServer;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code serve} killed with SIGKILL in the middle of turns, as a crash or an OOM kill would:
 * after a restart on the same store (the SQLite default, and PostgreSQL) every conversation
 * holds exactly its finished turns,
 * every {@code tool_use} answered, and takes its next turn (the mock model checks each request
 * as the Messages API would).
 */
@Integration
class ServeCrashTest {

  private final List<ServeChild> spawned = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private Vertx vertx;

  @TempDir
  Path dir;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() throws Exception {
    spawned.forEach(ServeChild::kill);
    try {
      dropSchema();
    } finally {
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  private int serve(Path agent, Path mcp) throws Exception {
    ServeChild child = ServeChild.spawn(vertx, agent, mcp);
    spawned.add(child);
    int port = Integer.parseInt(child.await("Agentbus listening on http://127.0.0.1:(\\d+)").await(60, TimeUnit.SECONDS).group(1));
    child.await(ServeStartupTest.catalogGot("demo")).await(60, TimeUnit.SECONDS);
    return port;
  }

  private HttpResponse<String> call(int port, String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60))
      .header("content-type", "application/json");
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private String create(int port) throws Exception {
    HttpResponse<String> r = call(port, "POST", "/v1/conversations", "{}");
    assertEquals(201, r.statusCode(), r.body());
    return new JsonObject(r.body()).getString("id");
  }

  private JsonObject send(int port, String id, String text) throws Exception {
    HttpResponse<String> r = call(port, "POST", "/v1/conversations/" + id + "/messages",
      new JsonObject().put("content", text).encode());
    assertEquals(200, r.statusCode(), r.body());
    return new JsonObject(r.body());
  }

  /** The PostgreSQL the store tests use; CI requires it (see PgTestSupport). */
  private static final String PG_URI = System.getenv().getOrDefault("AGENTBUS_TEST_PG_URI",
    "postgresql://postgres@127.0.0.1:5432/test");

  private JsonObject store(String type) {
    if ("sqlite".equals(type)) {
      return new JsonObject().put("path", dir.resolve("data/agentbus.db").toString());
    }
    try {
      PgConnection.connect(vertx, PgConnectOptions.fromUri(PG_URI)).compose(PgConnection::close).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      String required = System.getenv("AGENTBUS_REQUIRE_PG");
      String why = "PostgreSQL crash test skipped: no server answers at AGENTBUS_TEST_PG_URI (" + e.getMessage() + ")";
      if (required != null && !required.isBlank() && !required.equals("0")) {
        throw new AssertionError("AGENTBUS_REQUIRE_PG is set but " + why, e);
      }
      Assumptions.abort(why);
    }
    pgSchema = "agentbus_crash_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    return new JsonObject().put("type", "postgres").put("uri", PG_URI).put("schema", pgSchema);
  }

  private String pgSchema;

  private void dropSchema() throws Exception {
    if (pgSchema != null) {
      PgConnection.connect(vertx, PgConnectOptions.fromUri(PG_URI))
        .compose(c -> c.query("DROP SCHEMA IF EXISTS " + pgSchema + " CASCADE").execute().eventually(c::close))
        .await(30, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "postgres"})
  void aKilledServeLeavesEveryConversationAtItsLastFinishedTurn(String storeType) throws Exception {
    JsonObject demo = InteropServers.javaMain("demo", DemoMcpServer.class).toJson();
    Path mcp = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("demo", new JsonObject().put("command", demo.getString("command")).put("args", demo.getJsonArray("args")))).encode());
    Path agent = Files.writeString(dir.resolve("agent.json"), new JsonObject()
      .put("model", new JsonObject().put("demo", true).put("demoLatencyMs", 400))
      .put("http", new JsonObject().put("port", 0))
      .put("store", store(storeType)).encode());
    int port = serve(agent, mcp);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String id = create(port);
      send(port, id, "What is the weather in Paris?");
      ids.add(id);
    }
    // a second turn on each, killed once every one of them is under way with a tool call out
    List<CompletableFuture<Void>> toolCalls = new ArrayList<>();
    for (String id : ids) {
      toolCalls.add(streamUntilToolCall(port, id, "And the weather in Rome?"));
    }
    CompletableFuture.allOf(toolCalls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    ServeChild killed = spawned.get(0);
    killed.kill();
    assertTrue(killed.process.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, killed.process.exitValue(), "SIGKILL");

    int restarted = serve(agent, mcp);
    for (String id : ids) {
      HttpResponse<String> r = call(restarted, "GET", "/v1/conversations/" + id, null);
      assertEquals(200, r.statusCode(), r.body());
      JsonObject conv = new JsonObject(r.body());
      assertEquals(1, conv.getInteger("turns"), "only the finished turn of " + id + " is there: " + conv.encode());
      JsonArray messages = conv.getJsonArray("messages");
      assertEquals("What is the weather in Paris?", messages.getJsonObject(0).getValue("content"));
      assertEquals("assistant", messages.getJsonObject(messages.size() - 1).getString("role"));
      assertEveryToolUseAnswered(messages);
      JsonObject next = send(restarted, id, "And the weather in Rome?");
      assertTrue(next.getString("answer").contains("Rome"), next.encode());
    }
  }

  /** Sends a turn as SSE on a thread of its own; completes once its first tool call started. */
  private CompletableFuture<Void> streamUntilToolCall(int port, String id, String text) {
    CompletableFuture<Void> started = new CompletableFuture<>();
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/conversations/" + id + "/messages"))
      .header("content-type", "application/json").header("accept", "text/event-stream")
      .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("content", text).encode())).build();
    http.sendAsync(req, HttpResponse.BodyHandlers.ofInputStream()).thenAccept(resp -> {
      try (InputStream body = resp.body();
           BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.equals("event: tool_call_started")) {
            started.complete(null);
          }
        }
      } catch (Exception e) {
        // the server was killed under the stream: expected
      }
      started.completeExceptionally(new AssertionError("the turn of " + id + " ended before a tool call started"));
    }).exceptionally(err -> {
      started.completeExceptionally(err);
      return null;
    });
    return started;
  }

  /** Asserts that every {@code tool_use} of a history has its {@code tool_result}, and no result is without its call. */
  static void assertEveryToolUseAnswered(JsonArray messages) {
    Set<String> open = new HashSet<>();
    for (int i = 0; i < messages.size(); i++) {
      JsonObject m = messages.getJsonObject(i);
      if (!(m.getValue("content") instanceof JsonArray blocks)) {
        continue;
      }
      for (Object o : blocks) {
        JsonObject b = (JsonObject) o;
        if ("tool_use".equals(b.getString("type"))) {
          open.add(b.getString("id"));
        } else if ("tool_result".equals(b.getString("type"))) {
          assertTrue(open.remove(b.getString("tool_use_id")), "a tool_result without its tool_use: " + b.encode());
        }
      }
    }
    assertTrue(open.isEmpty(), "tool_use without a tool_result: " + open);
  }
}
