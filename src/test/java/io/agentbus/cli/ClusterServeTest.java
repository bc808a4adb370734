package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
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
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code serve --cluster} JVMs on loopback (issue 14): node A runs the only MCP server
 * ({@code roles mcp}), nodes B and C run conversations and the HTTP API ({@code roles
 * http,conversation}) on one PostgreSQL store, and every node's model is one {@link
 * MockModelServer} in rules mode (it calls the offered tool, then answers). The tool's result
 * names the pid of the {@code serve} JVM that started its server, so each assertion that "A ran
 * it" compares against A's real process.
 *
 * <ol>
 *   <li>turns through B's and C's APIs call the tool on A; the store shows C's conversations to B;</li>
 *   <li>C is killed with SIGKILL while four of its turns wait on a tool call and while B runs turns:
 *   B's turns all succeed, B holds exactly the turns C had committed, and C's conversations take
 *   their next turn on B with that history;</li>
 *   <li>A is killed with SIGKILL while a turn on B waits on its tool: that turn and the next one end
 *   in bounded time, the tool failure reported as an {@code is_error} result (or the tool gone
 *   from the catalog);</li>
 *   <li>A is restarted with the same configuration: turns through B reach the new A again.</li>
 * </ol>
 */
@Integration
class ClusterServeTest {

  private static final String PG_URI = System.getenv().getOrDefault("AGENTBUS_TEST_PG_URI",
    "postgresql://postgres@127.0.0.1:5432/test");
  private static final String TOOL = "mcp__where__where";
  /** How long a turn (or a node's start) may take before the test calls it hung. */
  private static final Duration TURN_LIMIT = Duration.ofSeconds(30);

  private final List<Node> nodes = new CopyOnWriteArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private Vertx vertx;
  private MockModelServer mock;
  private String schema;

  @TempDir
  Path dir;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    requirePostgres();
    mock = MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_RULES))
      .await(20, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    nodes.forEach(Node::kill);
    try {
      if (schema != null) {
        PgConnection.connect(vertx, PgConnectOptions.fromUri(PG_URI))
          .compose(c -> c.query("DROP SCHEMA IF EXISTS " + schema + " CASCADE").execute().eventually(c::close))
          .await(30, TimeUnit.SECONDS);
      }
    } finally {
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  /** Skips without a PostgreSQL, or fails when AGENTBUS_REQUIRE_PG says one is required (as PgTestSupport does). */
  private void requirePostgres() {
    try {
      PgConnection.connect(vertx, PgConnectOptions.fromUri(PG_URI))
        .compose(c -> c.query("SELECT 1").execute().eventually(c::close)).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      String required = System.getenv("AGENTBUS_REQUIRE_PG");
      String why = "cluster test skipped: no PostgreSQL answers at AGENTBUS_TEST_PG_URI (" + e.getMessage() + ")";
      if ((required != null && !required.isBlank() && !required.equals("0") && !required.equalsIgnoreCase("false"))
          || Boolean.getBoolean("agentbus.requirePg")) {
        throw new AssertionError("AGENTBUS_REQUIRE_PG is set but " + why, e);
      }
      Assumptions.abort(why);
    }
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void turnsCrossNodesAndSurviveKilledNodes() throws Exception {
    long began = System.nanoTime();
    String cluster = "agentbus-test-" + UUID.randomUUID().toString().substring(0, 8);
    schema = "agentbus_cluster_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    int[] hz = freePorts(4);
    JsonArray members = new JsonArray();
    for (int p : hz) {
      members.add("127.0.0.1:" + p);
    }
    Path slow = dir.resolve("slow");
    JsonObject where = InteropServers.javaMain("where", ClusterWhereServer.class, slow.toString()).toJson();
    // every node gets the same MCP configuration: only the node with the mcp role may run it
    Path mcp = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("where", new JsonObject().put("command", where.getString("command")).put("args", where.getJsonArray("args")))).encode());
    Path agentA = agentJson("A", cluster, hz[0], members);
    Path agentB = agentJson("B", cluster, hz[1], members);
    Path agentC = agentJson("C", cluster, hz[2], members);
    Path agentD = agentJson("D", cluster, hz[3], members);

    Node a = Node.spawn("A", agentA, mcp, "mcp");
    nodes.add(a);
    Node b = Node.spawn("B", agentB, mcp, "http,conversation");
    nodes.add(b);
    Node c = Node.spawn("C", agentC, mcp, "http,conversation");
    nodes.add(c);
    // D serves the API only: its turns run on B or C
    Node d = Node.spawn("D", agentD, mcp, "http");
    nodes.add(d);
    int portB = b.httpPort();
    int portC = c.httpPort();
    int portD = d.httpPort();
    for (Node n : List.of(a, b, c, d)) {
      n.joined(cluster);
    }
    // the cluster is whole once B sees three members and A serving "where"
    JsonObject health = poll("B's /health shows A, B, C and D with A serving 'where'", Duration.ofSeconds(60),
      () -> get(portB, "/health"), h -> h.statusCode() == 200 && clusterMembers(new JsonObject(h.body())).size() == 4
        && servers(member(new JsonObject(h.body()), "A")).contains("where"));
    JsonObject info = new JsonObject(health.getString("body"));
    assertEquals(cluster, info.getJsonObject("cluster").getString("name"), info.encode());
    assertEquals("B", info.getJsonObject("cluster").getJsonObject("node").getString("name"), info.encode());
    assertEquals(Set.of("mcp"), roles(member(info, "A")), info.encode());
    assertEquals(Set.of("http", "conversation"), roles(member(info, "B")), info.encode());
    assertEquals(Set.of("http", "conversation"), roles(member(info, "C")), info.encode());
    assertTrue(servers(member(info, "B")).isEmpty(), "B runs no MCP server: " + info.encode());
    assertTrue(servers(member(info, "C")).isEmpty(), "C runs no MCP server: " + info.encode());
    assertEquals(Set.of("http"), roles(member(info, "D")), info.encode());
    for (int port : List.of(portB, portC, portD)) {
      poll("the catalog of the node on port " + port + " lists " + TOOL, TURN_LIMIT, () -> get(port, "/v1/tools"),
        r -> r.statusCode() == 200 && toolNames(new JsonObject(r.body())).contains(TOOL));
    }
    HttpResponse<String> metrics = get(portC, "/metrics");
    assertEquals(200, metrics.statusCode());
    assertTrue(metrics.body().contains("agentbus_turns_running{node=\"C\"}"), "every metric carries the node label");
    log("cluster of 4 up after %d ms", ms(began));

    // 1. conversations through B's and C's APIs: the tool runs on A
    List<String> onB = new ArrayList<>();
    List<String> onC = new ArrayList<>();
    List<CompletableFuture<JsonObject>> first = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String id = create(portB);
      onB.add(id);
      first.add(sendAsync(portB, id, "b" + i + " turn 1"));
    }
    for (int i = 0; i < 4; i++) {
      String id = create(portC);
      onC.add(id);
      first.add(sendAsync(portC, id, "c" + i + " turn 1"));
    }
    List<String> onD = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      String id = create(portD);
      onD.add(id);
      first.add(sendAsync(portD, id, "d" + i + " turn 1"));
    }
    for (CompletableFuture<JsonObject> f : first) {
      assertToolRanOn(a, within(f, "a first turn"));
    }
    for (String id : onC) {
      JsonObject conv = conversation(portB, id);
      assertEquals(1, conv.getInteger("turns"), "B reads C's conversation from the store: " + conv.encode());
      assertTrue(toolResultText(conv.getJsonArray("messages")).contains(ranIn(a)), conv.encode());
    }
    // a conversation moves from node to node: after C's turn, B's copy in memory is stale, and B
    // must notice (a stale copy would run the turn on old history and then lose the commit: 409)
    String moving = onB.get(1);
    assertToolRanOn(a, within(sendAsync(portC, moving, "b1 turn 2, on C"), "a turn of B's conversation on C"));
    assertToolRanOn(a, within(sendAsync(portB, moving, "b1 turn 3, back on B"), "the next turn back on B"));
    JsonObject moved = conversation(portC, moving);
    assertEquals(3, moved.getInteger("turns"), moved.encode());
    List<Object> asked = new ArrayList<>();
    moved.getJsonArray("messages").forEach(m -> {
      JsonObject message = (JsonObject) m;
      if ("user".equals(message.getString("role")) && message.getValue("content") instanceof String text) {
        asked.add(text);
      }
    });
    assertEquals(List.of("b1 turn 1", "b1 turn 2, on C", "b1 turn 3, back on B"), asked, moved.encode());
    ServeCrashTest.assertEveryToolUseAnswered(moved.getJsonArray("messages"));
    log("phase 1 (tool calls from B and C ran on A) done after %d ms", ms(began));

    // 2. SIGKILL C while four of its turns wait on A's (now slow) tool and B keeps running turns
    Files.writeString(slow, "");
    BLoad load = new BLoad(portB, onB.get(0), a);
    load.start();
    List<CompletableFuture<Void>> started = new ArrayList<>();
    for (String id : onC) {
      started.add(streamUntilToolCall(portC, id, "turn 2 of " + id + ", killed"));
    }
    // D's eight turns run on B and C in turn (each of D's listeners alternates between them)
    List<CompletableFuture<JsonObject>> throughD = new ArrayList<>();
    for (String id : onD) {
      CompletableFuture<JsonObject> ended = new CompletableFuture<>();
      throughD.add(ended);
      started.add(streamUntilToolCall(portD, id, "turn 2 of " + id + ", through D", ended));
    }
    within(CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)), "the turns of C and D calling the tool");
    load.awaitInFlight();
    c.kill();
    assertTrue(c.process.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, c.process.exitValue(), "SIGKILL");
    long killedC = System.nanoTime();
    int doneAtKill = load.completed();
    log("killed C with 4 turns waiting on tool calls, after %d ms", ms(began));
    // no turn through D waits for the dead node: those C ran fail at once with 503, those B ran succeed
    int lostWithC = 0;
    for (CompletableFuture<JsonObject> ended : throughD) {
      JsonObject outcome = within(ended, "a turn through D");
      if (outcome.getValue("error") instanceof JsonObject) {
        lostWithC++;
        assertEquals(503, outcome.getInteger("status"), outcome.encode());
        assertTrue(outcome.getJsonObject("error").getString("message").contains("(C) left the cluster before it answered"),
          outcome.encode());
      } else {
        assertToolRanOn(a, outcome);
      }
    }
    log("D's turns ended %d ms after C was killed, %d of 8 lost with C", ms(killedC), lostWithC);
    assertTrue(lostWithC >= 1 && lostWithC <= 6, "D spread its turns over B and C: " + lostWithC + " of 8 were on C");
    assertTrue(ms(killedC) < 15_000, "D's turns on C failed soon after C died, not at a timeout");
    Files.delete(slow);
    // B keeps serving: the turn it was running across the kill and two more after it succeed
    load.awaitCompleted(doneAtKill + 3);
    load.stop();
    assertTrue(load.failures.isEmpty(), "B failed turns while C died: " + load.failures);
    poll("B's /health drops C", TURN_LIMIT, () -> get(portB, "/health"),
      h -> h.statusCode() == 200 && clusterMembers(new JsonObject(h.body())).size() == 3);
    // every turn C had committed is in the store, no more, and the conversation goes on on B
    for (int i = 0; i < onC.size(); i++) {
      String id = onC.get(i);
      JsonObject conv = conversation(portB, id);
      assertEquals(1, conv.getInteger("turns"), "exactly the turn C committed: " + conv.encode());
      JsonArray messages = conv.getJsonArray("messages");
      assertEquals("c" + i + " turn 1", messages.getJsonObject(0).getValue("content"), conv.encode());
      assertEquals("assistant", messages.getJsonObject(messages.size() - 1).getString("role"), conv.encode());
      ServeCrashTest.assertEveryToolUseAnswered(messages);
      JsonObject next = sendUntilAccepted(portB, id, "c" + i + " turn 2, on B");
      assertToolRanOn(a, next);
      JsonObject after = conversation(portB, id);
      assertEquals(2, after.getInteger("turns"), after.encode());
      JsonArray history = after.getJsonArray("messages");
      for (int m = 0; m < messages.size(); m++) {
        assertEquals(messages.getJsonObject(m), history.getJsonObject(m), "C's history kept as it was: " + after.encode());
      }
      ServeCrashTest.assertEveryToolUseAnswered(history);
    }
    log("phase 2 (C killed, its conversations continued on B) done after %d ms", ms(began));

    // 3. SIGKILL A while a turn on B waits on its tool: that turn and the next end cleanly, in bounded time
    Files.writeString(slow, "");
    CompletableFuture<JsonObject> inFlight = new CompletableFuture<>();
    within(streamUntilToolCall(portB, onB.get(1), "b1, the turn A dies in", inFlight), "B's turn calling the tool");
    long killedA = System.nanoTime();
    a.kill();
    assertTrue(a.process.waitFor(30, TimeUnit.SECONDS));
    assertEquals(137, a.process.exitValue(), "SIGKILL");
    Files.delete(slow);
    JsonObject cut = within(inFlight, "the turn on B whose tool call was running on A when A was killed");
    log("the turn in flight when A died ended after %d ms: %s", ms(killedA), cut.encode());
    assertToolFailedCleanly(portB, onB.get(1), cut, true);
    long nextAt = System.nanoTime();
    String afterA = create(portB);
    JsonObject next = send(portB, afterA, "a turn while A is down");
    log("a turn started after A died ended after %d ms: %s", ms(nextAt), next.encode());
    assertToolFailedCleanly(portB, afterA, next, false);
    poll("B's /health drops A", TURN_LIMIT, () -> get(portB, "/health"),
      h -> h.statusCode() == 200 && clusterMembers(new JsonObject(h.body())).size() == 2);
    log("phase 3 (A killed, tool failures reported) done after %d ms", ms(began));

    // 4. A restarted with the same configuration: tool calls through B reach it again
    Node a2 = Node.spawn("A", agentA, mcp, "mcp");
    nodes.add(a2);
    a2.joined(cluster);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    JsonObject back = null;
    int attempts = 0;
    while (back == null) {
      attempts++;
      String id = create(portB);
      JsonObject r = send(portB, id, "is A back?");
      if (r.getJsonArray("toolCalls").size() == 1 && !r.getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError")
          && toolResultText(conversation(portB, id).getJsonArray("messages")).contains(ranIn(a2))) {
        back = r;
      } else if (System.nanoTime() > deadline) {
        fail("no tool call through B reached the restarted A within 60 s (" + attempts + " attempts); last: " + r.encode()
          + "\n" + a2.tail());
      } else {
        vertx.timer(500).await();
      }
    }
    log("tool calls through B reach the restarted A after %d attempts", attempts);
    assertToolRanOn(a2, sendUntilAccepted(portB, onC.get(0), "c0 turn 3, A is back"));
    assertEquals(3, conversation(portB, onC.get(0)).getInteger("turns"));
    log("whole test took %d ms", ms(began));
  }

  /** @return the future's value; fails naming {@code what} if it takes longer than {@link #TURN_LIMIT} (a hang) */
  private <T> T within(CompletableFuture<T> future, String what) throws Exception {
    try {
      return future.get(TURN_LIMIT.toSeconds(), TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      StringBuilder out = new StringBuilder();
      nodes.forEach(n -> out.append('\n').append(n.tail()));
      throw new AssertionError(what + ": no answer within " + TURN_LIMIT.toSeconds() + " s" + out, e);
    }
  }

  // ---- the turns ------------------------------------------------------------------------------

  /** Asserts a turn called the tool once, successfully, and its result names {@code node}'s pid. */
  private void assertToolRanOn(Node node, JsonObject turn) throws Exception {
    assertEquals("end_turn", turn.getString("status"), turn.encode());
    JsonArray calls = turn.getJsonArray("toolCalls");
    assertEquals(1, calls.size(), turn.encode());
    assertEquals(TOOL, calls.getJsonObject(0).getString("name"), turn.encode());
    assertFalse(calls.getJsonObject(0).getBoolean("isError"), turn.encode());
    assertEquals("Received 1 tool result(s).", turn.getString("answer"), turn.encode());
    JsonObject conv = conversationAnywhere(turn.getString("conversationId"));
    String text = toolResultText(conv.getJsonArray("messages"));
    assertTrue(text.contains(ranIn(node)), "the tool ran on node " + node.name + " (" + ranIn(node) + "): " + text);
  }

  /**
   * Asserts a turn whose tool's node is gone ended with the failure reported: an {@code is_error}
   * result with a reason, or (once the catalog dropped the tool) no tool call at all.
   */
  private void assertToolFailedCleanly(int port, String id, JsonObject turn, boolean mustHaveCalled) throws Exception {
    assertEquals("end_turn", turn.getString("status"), turn.encode());
    JsonArray calls = turn.getJsonArray("toolCalls");
    JsonObject conv = conversation(port, id);
    JsonArray messages = conv.getJsonArray("messages");
    ServeCrashTest.assertEveryToolUseAnswered(messages);
    if (calls.isEmpty() && !mustHaveCalled) {
      assertTrue(turn.getString("answer").startsWith("No tools offered"), turn.encode());
      return;
    }
    assertEquals(1, calls.size(), turn.encode());
    assertTrue(calls.getJsonObject(0).getBoolean("isError"), "the call failed: " + turn.encode());
    assertEquals("Received 1 tool result(s), 1 failed.", turn.getString("answer"), turn.encode());
    JsonObject result = lastToolResult(messages);
    assertTrue(result.getBoolean("is_error"), result.encode());
    String reason = blocksText(result.getValue("content"));
    assertFalse(reason.isBlank(), "a reason: " + result.encode());
    assertFalse(reason.contains("ran in agentbus pid"), result.encode());
    log("the failed call's tool_result says: %s", reason);
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

  /**
   * Sends a turn, again every 500 ms while it is refused with 409 (a turn of a killed node may hold
   * the conversation until the cluster notices), for at most {@link #TURN_LIMIT}.
   */
  private JsonObject sendUntilAccepted(int port, String id, String text) throws Exception {
    long deadline = System.nanoTime() + TURN_LIMIT.toNanos();
    while (true) {
      HttpResponse<String> r = call(port, "POST", "/v1/conversations/" + id + "/messages",
        new JsonObject().put("content", text).encode());
      if (r.statusCode() == 200) {
        return new JsonObject(r.body());
      }
      if (r.statusCode() != 409 || System.nanoTime() > deadline) {
        fail("turn on " + id + " refused: " + r.statusCode() + " " + r.body());
      }
      log("turn on %s refused with 409 (%s), again in 500 ms", id, r.body());
      vertx.timer(500).await();
    }
  }

  private CompletableFuture<JsonObject> sendAsync(int port, String id, String text) {
    return http.sendAsync(request(port, "POST", "/v1/conversations/" + id + "/messages",
      new JsonObject().put("content", text).encode()), HttpResponse.BodyHandlers.ofString()).thenApply(r -> {
        assertEquals(200, r.statusCode(), r.body());
        return new JsonObject(r.body());
      });
  }

  private JsonObject conversation(int port, String id) throws Exception {
    HttpResponse<String> r = call(port, "GET", "/v1/conversations/" + id, null);
    assertEquals(200, r.statusCode(), r.body());
    return new JsonObject(r.body());
  }

  /** Reads a conversation through any live HTTP node. */
  private JsonObject conversationAnywhere(String id) throws Exception {
    for (Node n : nodes) {
      if (n.process.isAlive() && n.port > 0) {
        return conversation(n.port, id);
      }
    }
    throw new AssertionError("no HTTP node alive");
  }

  private CompletableFuture<Void> streamUntilToolCall(int port, String id, String text) {
    return streamUntilToolCall(port, id, text, new CompletableFuture<>());
  }

  /**
   * Sends a turn as SSE; the returned future completes once its first tool call started, {@code
   * done} with the turn result of the {@code done} event.
   */
  private CompletableFuture<Void> streamUntilToolCall(int port, String id, String text, CompletableFuture<JsonObject> done) {
    CompletableFuture<Void> started = new CompletableFuture<>();
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/conversations/" + id + "/messages"))
      .header("content-type", "application/json").header("accept", "text/event-stream")
      .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("content", text).encode())).build();
    http.sendAsync(req, HttpResponse.BodyHandlers.ofInputStream()).thenAccept(resp -> {
      try (InputStream body = resp.body();
           BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        if (resp.statusCode() != 200) {
          throw new AssertionError("turn on " + id + " refused: " + resp.statusCode());
        }
        String line;
        String event = null;
        while ((line = in.readLine()) != null) {
          if (line.startsWith("event: ")) {
            event = line.substring(7);
            if (event.equals("tool_call_started")) {
              started.complete(null);
            }
          } else if (line.startsWith("data: ") && "done".equals(event)) {
            done.complete(new JsonObject(line.substring(6)).getJsonObject("result"));
          } else if (line.startsWith("data: ") && "error".equals(event)) {
            done.complete(new JsonObject(line.substring(6)));
          }
        }
      } catch (Throwable e) {
        started.completeExceptionally(e);
        done.completeExceptionally(e);
      }
      started.completeExceptionally(new AssertionError("the turn of " + id + " ended before a tool call started"));
      done.completeExceptionally(new AssertionError("the stream of " + id + " ended without done"));
    }).exceptionally(err -> {
      started.completeExceptionally(err);
      done.completeExceptionally(err);
      return null;
    });
    return started;
  }

  /** Turns on one conversation of B, one after the other, on a thread of their own. */
  private final class BLoad {
    final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;
    private final CompletableFuture<Void> inFlight = new CompletableFuture<>();
    private int completed;

    BLoad(int port, String id, Node a) {
      thread = new Thread(() -> {
        for (int n = 1; !stop.get(); n++) {
          try {
            inFlight.complete(null);
            assertToolRanOn(a, send(port, id, "load turn " + n));
          } catch (Throwable e) {
            failures.add(e.toString());
          }
          synchronized (this) {
            completed++;
            notifyAll();
          }
        }
      }, "b-load");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void awaitInFlight() throws Exception {
      inFlight.get(10, TimeUnit.SECONDS);
    }

    synchronized int completed() {
      return completed;
    }

    /** Waits (at most twice {@link #TURN_LIMIT}) until {@code n} turns completed. */
    synchronized void awaitCompleted(int n) throws InterruptedException {
      long deadline = System.nanoTime() + TURN_LIMIT.toNanos() * 2;
      while (completed < n) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          fail("B completed only " + completed + " of " + n + " turns; failures " + failures);
        }
        wait(left);
      }
    }

    void stop() throws Exception {
      stop.set(true);
      thread.join(TURN_LIMIT.toMillis());
      assertFalse(thread.isAlive(), "B's last turn hung");
    }
  }

  // ---- HTTP and JSON helpers ------------------------------------------------------------------

  private HttpRequest request(int port, String method, String path, String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(TURN_LIMIT)
      .header("content-type", "application/json")
      .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
  }

  private HttpResponse<String> call(int port, String method, String path, String body) throws Exception {
    return http.send(request(port, method, path, body), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return call(port, "GET", path, null);
  }

  @FunctionalInterface
  private interface Attempt {
    HttpResponse<String> run() throws Exception;
  }

  /** Repeats a request every 250 ms until its answer passes, for at most {@code limit}; returns {status, body}. */
  private JsonObject poll(String what, Duration limit, Attempt attempt, Predicate<HttpResponse<String>> ok) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    String last = "";
    while (true) {
      try {
        HttpResponse<String> r = attempt.run();
        last = r.statusCode() + " " + r.body();
        if (ok.test(r)) {
          return new JsonObject().put("status", r.statusCode()).put("body", r.body());
        }
      } catch (Exception e) {
        last = e.toString();
      }
      if (System.nanoTime() > deadline) {
        StringBuilder out = new StringBuilder();
        nodes.forEach(n -> out.append('\n').append(n.tail()));
        fail("not within " + limit.toSeconds() + " s: " + what + "; last answer: " + last + out);
      }
      vertx.timer(250).await();
    }
  }

  private static JsonArray clusterMembers(JsonObject health) {
    JsonObject cluster = health.getJsonObject("cluster");
    return cluster == null ? new JsonArray() : cluster.getJsonArray("members", new JsonArray());
  }

  private static JsonObject member(JsonObject health, String name) {
    for (Object o : clusterMembers(health)) {
      if (o instanceof JsonObject m && name.equals(m.getString("name"))) {
        return m;
      }
    }
    return new JsonObject();
  }

  private static Set<String> roles(JsonObject member) {
    Set<String> roles = new HashSet<>();
    member.getJsonArray("roles", new JsonArray()).forEach(r -> roles.add(String.valueOf(r)));
    return roles;
  }

  private static Set<String> servers(JsonObject member) {
    Set<String> servers = new HashSet<>();
    for (Object s : member.getJsonArray("servers", new JsonArray())) {
      servers.add(s instanceof JsonObject o ? o.getString("name") : String.valueOf(s));
    }
    return servers;
  }

  private static Set<String> toolNames(JsonObject tools) {
    Set<String> names = new HashSet<>();
    tools.getJsonArray("tools", new JsonArray()).forEach(t -> names.add(((JsonObject) t).getString("name")));
    return names;
  }

  private static String ranIn(Node node) {
    return "ran in agentbus pid " + node.process.pid() + " (";
  }

  /** @return the last {@code tool_result} block of a history */
  private static JsonObject lastToolResult(JsonArray messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.getJsonObject(i).getValue("content") instanceof JsonArray blocks) {
        for (int j = blocks.size() - 1; j >= 0; j--) {
          JsonObject b = blocks.getJsonObject(j);
          if ("tool_result".equals(b.getString("type"))) {
            return b;
          }
        }
      }
    }
    throw new AssertionError("no tool_result in " + messages.encode());
  }

  private static String toolResultText(JsonArray messages) {
    return blocksText(lastToolResult(messages).getValue("content"));
  }

  private static String blocksText(Object content) {
    if (content instanceof String s) {
      return s;
    }
    StringBuilder sb = new StringBuilder();
    if (content instanceof JsonArray blocks) {
      for (Object o : blocks) {
        if (o instanceof JsonObject b && b.getString("text") != null) {
          sb.append(b.getString("text"));
        }
      }
    }
    return sb.toString();
  }

  // ---- the nodes ------------------------------------------------------------------------------

  private Path agentJson(String name, String cluster, int hzPort, JsonArray members) throws Exception {
    JsonObject agent = new JsonObject()
      .put("model", new JsonObject().put("provider", "anthropic").put("apiKey", "test-key-" + UUID.randomUUID())
        .put("baseUrl", "http://127.0.0.1:" + mock.actualPort()).put("maxRetries", 0))
      .put("http", new JsonObject().put("port", 0))
      .put("drainTimeoutMs", 2000)
      .put("store", new JsonObject().put("type", "postgres").put("uri", PG_URI).put("schema", schema))
      .put("cluster", new JsonObject().put("name", cluster).put("host", "127.0.0.1").put("port", hzPort)
        .put("members", members).put("nodeName", name).put("failureDetectionMs", 3000));
    return Files.writeString(dir.resolve("agent-" + name + ".json"), agent.encode());
  }

  private static int[] freePorts(int n) throws Exception {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        sockets.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        s.close();
      }
    }
  }

  private static long ms(long since) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
  }

  private static void log(String format, Object... args) {
    System.out.println("[ClusterServeTest] " + String.format(format, args));
  }

  /** One {@code serve --cluster} JVM (as ServeChild, with the cluster flags and its MCP children remembered). */
  private static final class Node {
    final String name;
    final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();
    final String roles;
    private final List<ProcessHandle> children = new CopyOnWriteArrayList<>();
    private final List<Object[]> waiting = new CopyOnWriteArrayList<>();
    volatile int port = -1;

    private Node(String name, String roles, Process process) {
      this.name = name;
      this.roles = roles;
      this.process = process;
    }

    static Node spawn(String name, Path agent, Path mcp, String roles) throws Exception {
      List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
        "-cp", System.getProperty("java.class.path"), AgentMain.class.getName(), "serve",
        "--config", agent.toString(), "--mcp-config", mcp.toString(), "--cluster", "--roles", roles);
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.environment().remove("ANTHROPIC_API_KEY");
      pb.environment().remove("OPENAI_API_KEY");
      pb.environment().remove("AGENTBUS_PORT");
      Node node = new Node(name, roles, pb.start());
      Thread reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(node.process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = in.readLine()) != null) {
            node.add(line);
          }
        } catch (Exception e) {
          node.add("reader ended: " + e);
        }
      }, "node-" + name + "-output");
      reader.setDaemon(true);
      reader.start();
      return node;
    }

    private void add(String line) {
      lines.add(line);
      for (Object[] w : waiting) {
        Matcher m = ((Pattern) w[0]).matcher(line);
        if (m.find()) {
          @SuppressWarnings("unchecked")
          CompletableFuture<Matcher> f = (CompletableFuture<Matcher>) w[1];
          f.complete(m);
        }
      }
    }

    /** @return the first output line, seen or to come, that matches, within {@link #TURN_LIMIT} × 2 */
    Matcher await(String regex) throws Exception {
      Pattern pattern = Pattern.compile(regex);
      CompletableFuture<Matcher> f = new CompletableFuture<>();
      waiting.add(new Object[] {pattern, f});
      for (String line : lines) {
        Matcher m = pattern.matcher(line);
        if (m.find()) {
          f.complete(m);
        }
      }
      try {
        return f.get(TURN_LIMIT.toSeconds() * 2, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("node " + name + " never logged /" + regex + "/ (alive " + process.isAlive() + ")\n" + tail());
      }
    }

    int httpPort() throws Exception {
      port = Integer.parseInt(await("Agentbus listening on http://127.0.0.1:(\\d+)").group(1));
      return port;
    }

    void joined(String cluster) throws Exception {
      Matcher m = await("Agentbus node " + name + " joined cluster (\\S+): roles ([a-z,]+), (\\d+) members");
      assertEquals(cluster, m.group(1), m.group());
      assertEquals(Set.of(roles.split(",")), Set.of(m.group(2).split(",")), m.group());
    }

    /** Kills the node with SIGKILL, and the MCP servers it started. */
    void kill() {
      process.descendants().forEach(children::add);
      process.destroyForcibly();
      children.forEach(ProcessHandle::destroyForcibly);
    }

    String tail() {
      List<String> all = new ArrayList<>(lines);
      return "---- node " + name + " (last lines) ----\n" + String.join("\n", all.subList(Math.max(0, all.size() - 60), all.size()));
    }
  }
}
