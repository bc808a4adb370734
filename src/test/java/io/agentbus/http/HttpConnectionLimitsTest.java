package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Connections that hold the API without using it (issue 12): half-sent request heads, silent
 * connections, idle keep-alive connections and bodies that stop arriving are closed after
 * {@code headerTimeoutMs} / {@code idleTimeoutMs}; {@code maxConnections} caps them, making room
 * for a new connection by closing the one waiting longest on its client; and a turn that runs
 * longer than the idle timeout, without a byte on the wire, still completes.
 */
class HttpConnectionLimitsTest {

  private static final String TOKEN = "limits-token-3c1e";
  private static final long HEADER_TIMEOUT_MS = 400;
  private static final long IDLE_TIMEOUT_MS = 500;
  /** Far more than any timeout under test: how long a test waits for something that must happen. */
  private static final long PATIENCE_MS = 10_000;

  private Vertx vertx;
  private WebClient web;
  private final List<RawHttp> sockets = new ArrayList<>();

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    web = WebClient.create(vertx);
  }

  @AfterEach
  void stop() {
    sockets.forEach(RawHttp::close);
    vertx.close().await();
  }

  private static HttpApiOptions options() {
    return new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(TOKEN, "acme")
      .setHeaderTimeoutMs(HEADER_TIMEOUT_MS).setIdleTimeoutMs(IDLE_TIMEOUT_MS);
  }

  private int deploy(HttpApiOptions options) {
    HttpApiVerticle api = new HttpApiVerticle(options);
    vertx.deployVerticle(api).await();
    return api.actualPort();
  }

  private RawHttp open(int port) {
    RawHttp s = RawHttp.connect(port);
    sockets.add(s);
    return s;
  }

  private static String healthRequest() {
    return "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  }

  /** A POST whose body stops after 10 of 1000 bytes; returns once the server has read the head. */
  private static void startBody(RawHttp s) {
    s.send("POST /v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN
      + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n");
    // the body handler asks for the body once the request has been routed
    assertNotNull(s.readUntil("100 Continue\r\n\r\n", PATIENCE_MS), "no 100 Continue");
    s.send("{\"system\":");
  }

  @Test
  void halfSentHeadsAndSilentConnectionsAreClosedAfterTheHeaderTimeout() {
    int port = deploy(options());
    List<RawHttp> attackers = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      RawHttp s = open(port);
      if (i % 2 == 0) {
        s.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      }
      attackers.add(s);
    }
    for (RawHttp s : attackers) {
      long took = s.awaitClosed(PATIENCE_MS);
      assertTrue(took >= 0, "a connection without a complete request head was still open after " + PATIENCE_MS + " ms");
    }
    // and the API still answers
    HttpResponse<Buffer> health = web.get(port, "127.0.0.1", "/health").send().await();
    assertEquals(200, health.statusCode(), health.bodyAsString());
  }

  @Test
  void theHeaderTimeoutDoesNotCutAClientThatSendsItsHeadInTime() {
    int port = deploy(options());
    RawHttp s = open(port);
    s.send("GET /health HTTP/1.1\r\n");
    s.send("Host: 127.0.0.1\r\n\r\n");
    assertNotNull(s.readUntil("\"status\"", PATIENCE_MS), "no answer");
  }

  @Test
  void anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() {
    int port = deploy(options());
    RawHttp s = open(port);
    s.send(healthRequest());
    assertNotNull(s.readUntil("\"status\"", PATIENCE_MS), "no answer");
    long start = System.nanoTime();
    assertTrue(s.awaitClosed(PATIENCE_MS) >= 0, "an idle keep-alive connection was never closed");
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    // closed by the idle timeout, not at once after the answer (allowing for timer slack)
    assertTrue(waited >= IDLE_TIMEOUT_MS / 2, "closed after " + waited + " ms");
  }

  @Test
  void aBodyThatStopsArrivingIsClosedAfterTheIdleTimeout() {
    int port = deploy(options());
    RawHttp s = open(port);
    startBody(s);
    assertTrue(s.awaitClosed(PATIENCE_MS) >= 0, "a request whose body stopped arriving kept its connection");
  }

  @Test
  void overTheLimitTheConnectionWaitingLongestMakesRoomSoHealthAnswers() {
    // a header timeout longer than the test: only the limit can close these
    int port = deploy(options().setMaxConnections(5).setHeaderTimeoutMs(60_000));
    List<RawHttp> attackers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      attackers.add(open(port).send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
    }
    RawHttp operator = open(port).send(healthRequest());
    String answer = operator.readUntil("\"status\"", PATIENCE_MS);
    assertNotNull(answer, "/health was not answered with the connection limit full of half-sent heads");
    assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
    // the oldest half-sent head made room (accept order is connection order); the others stay
    assertTrue(attackers.get(0).awaitClosed(PATIENCE_MS) >= 0, "the connection waiting longest was not closed");
    for (RawHttp s : attackers.subList(1, 5)) {
      assertEquals(-1, s.awaitClosed(200), "a younger connection was closed too");
    }
  }

  @Test
  void whenEveryConnectionIsBusyANewOneIsClosedAtOnceAndHealthAnswersOnceTheyAreGone() {
    int port = deploy(options().setMaxConnections(3).setIdleTimeoutMs(60_000));
    List<RawHttp> busy = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      RawHttp s = open(port);
      startBody(s);
      busy.add(s);
    }
    RawHttp refused = open(port).send(healthRequest());
    String got = refused.readAll(PATIENCE_MS);
    assertEquals("", got, "a connection over the limit was served");

    busy.forEach(RawHttp::close);
    // the server learns of the closes asynchronously: ask until it answers (bounded)
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MS);
    String answer = "";
    while (!answer.startsWith("HTTP/1.1 200") && System.nanoTime() < deadline) {
      try (RawHttp s = RawHttp.connect(port)) {
        answer = s.send(healthRequest()).readUntil("\"status\"", PATIENCE_MS);
        answer = answer == null ? "" : answer;
      }
    }
    assertTrue(answer.startsWith("HTTP/1.1 200"), "/health did not answer once the busy connections were gone: " + answer);
  }

  @Test
  void bodiesStillArrivingForARequestAlreadyRefusedMakeRoomToo() {
    int port = deploy(options().setMaxConnections(3).setIdleTimeoutMs(60_000));
    List<RawHttp> refused = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      RawHttp s = open(port).send("POST /v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
        + "\r\nContent-Length: 1000\r\n\r\n{\"system\":");
      assertNotNull(s.readUntil("401 Unauthorized", PATIENCE_MS), "no 401 without a token");
      refused.add(s);
    }
    RawHttp operator = open(port).send(healthRequest());
    String answer = operator.readUntil("\"status\"", PATIENCE_MS);
    assertNotNull(answer, "/health was not answered with the limit full of refused requests' bodies");
    assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
    assertTrue(refused.get(0).awaitClosed(PATIENCE_MS) >= 0, "the connection waiting longest was not closed");
  }

  @Test
  void theMembersOfAGroupShareTheLimit() {
    HttpApiVerticle.Group group = new HttpApiVerticle.Group();
    HttpApiOptions options = options().setMaxConnections(2).setIdleTimeoutMs(60_000)
      .setPort(HttpApiVerticle.Group.freePort("127.0.0.1"));
    vertx.deployVerticle(() -> group.newMember(options), new DeploymentOptions().setInstances(2)).await();
    int port = options.getPort();
    // Vert.x hands the accepted connections to the members in turn: one busy connection each
    for (int i = 0; i < 2; i++) {
      startBody(open(port));
    }
    // with a limit per member, either member would still take this one
    assertEquals("", open(port).send(healthRequest()).readAll(PATIENCE_MS), "a connection over the group's limit was served");
  }

  @Test
  void aTurnLongerThanTheIdleTimeoutCompletesAsJsonAndAsSse() {
    long latency = IDLE_TIMEOUT_MS * 4;
    MockModelServer mock = MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT)
      .setLatencyMs(latency)).await();
    ModelOptions model = new ModelOptions().setProvider(ModelOptions.ANTHROPIC).setApiKey("test-key")
      .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock-model").setMaxRetries(0);
    Agentbus.deploy(vertx, new AgentbusOptions().setConversationInstances(1)
      .setConversation(new ConversationOptions().setModel(model))).await();
    int port = deploy(options());

    HttpResponse<Buffer> created = web.post(port, "127.0.0.1", "/v1/conversations").bearerTokenAuthentication(TOKEN)
      .sendJsonObject(new JsonObject()).await();
    assertEquals(201, created.statusCode(), created.bodyAsString());
    String id = created.bodyAsJsonObject().getString("id");

    long start = System.nanoTime();
    HttpResponse<Buffer> json = web.post(port, "127.0.0.1", "/v1/conversations/" + id + "/messages")
      .bearerTokenAuthentication(TOKEN).timeout(PATIENCE_MS).sendJsonObject(new JsonObject().put("content", "hi")).await();
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertEquals(200, json.statusCode(), json.bodyAsString());
    assertEquals("end_turn", json.bodyAsJsonObject().getString("status"), json.bodyAsString());
    assertTrue(took >= latency, "the turn took only " + took + " ms: not longer than the idle timeout");

    // an SSE stream sends no keep-alive before 15 s, so this turn is silent on the wire too
    HttpResponse<Buffer> sse = web.post(port, "127.0.0.1", "/v1/conversations/" + id + "/messages")
      .bearerTokenAuthentication(TOKEN).putHeader("Accept", "text/event-stream").timeout(PATIENCE_MS)
      .sendJsonObject(new JsonObject().put("content", "again")).await();
    assertEquals(200, sse.statusCode(), sse.bodyAsString());
    assertTrue(sse.bodyAsString().contains("event: done"), sse.bodyAsString());
    assertFalse(sse.bodyAsString().contains("event: error"), sse.bodyAsString());
  }
}
