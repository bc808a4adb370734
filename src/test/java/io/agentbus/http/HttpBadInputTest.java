package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.LogCapture;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Input that vertx-web refuses before any route of ours runs (issue 12): a malformed
 * percent-escape in the path is a 400 in the API's error JSON, and a client that goes away in
 * the middle of its body is logged at debug; neither logs an ERROR or a WARN.
 */
class HttpBadInputTest {

  private static final String TOKEN = "bad-input-token-9d4b";
  private static final long PATIENCE_MS = 10_000;

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private Vertx vertx;
  private int port;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(TOKEN, "acme"));
    vertx.deployVerticle(api).await();
    port = api.actualPort();
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  private List<String> errorsAndWarnings() {
    return logs.lines().stream().filter(l -> l.startsWith("ERROR") || l.startsWith("WARN")).toList();
  }

  /** Sends one request with {@code Connection: close} and returns the raw answer. */
  private String exchange(String request) {
    try (RawHttp s = RawHttp.connect(port)) {
      return s.send(request).readAll(PATIENCE_MS);
    }
  }

  private static JsonObject body(String answer) {
    int at = answer.indexOf("\r\n\r\n");
    assertTrue(at > 0, answer);
    return new JsonObject(answer.substring(at + 4));
  }

  @Test
  void aMalformedPercentEscapeIsA400InTheErrorJson() {
    String answer = exchange("GET /v1/conversations/c0-%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN
      + "\r\nConnection: close\r\n\r\n");
    assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
    assertTrue(answer.toLowerCase().contains("content-type: application/json"), answer);
    JsonObject error = body(answer).getJsonObject("error");
    assertNotNull(error, answer);
    assertEquals("invalid_request", error.getString("type"), answer);
    assertTrue(error.getString("message").contains("c0-%zz"), answer);
    assertEquals(List.of(), errorsAndWarnings());
    assertTrue(logs.contains("-> 400"), "the refusal is logged at debug: " + logs.lines());
  }

  @Test
  void aMalformedQueryIsA400InTheErrorJsonToo() {
    String answer = exchange("GET /v1/tools?provider=%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN
      + "\r\nConnection: close\r\n\r\n");
    assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
    assertEquals("invalid_request", body(answer).getJsonObject("error").getString("type"), answer);
    assertEquals(List.of(), errorsAndWarnings());
  }

  @Test
  void aClientThatGoesAwayMidBodyIsLoggedAtDebugOnly() {
    try (RawHttp s = RawHttp.connect(port)) {
      s.send("POST /v1/conversations/c0-abc/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN
        + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"content\"");
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MS);
    while (!logs.contains("the client went away") && errorsAndWarnings().isEmpty() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    assertEquals(List.of(), errorsAndWarnings());
    assertTrue(logs.lines().stream().anyMatch(l -> l.startsWith("DEBUG") && l.contains("the client went away")),
      "the abort is logged at debug: " + logs.lines());
  }
}
