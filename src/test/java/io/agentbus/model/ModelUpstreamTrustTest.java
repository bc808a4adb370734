package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A model endpoint is untrusted: its redirects, odd bodies and echoes never leak the API key. */
class ModelUpstreamTrustTest {

  private static final String KEY = "sk-ant-api03-Zx9QpL4mN7vB2cR8tY6wE1uI5oP3aS0dF-hJkLmNoP";

  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  private int serve(Handler<HttpServerRequest> handler) throws Exception {
    HttpServer server = vertx.createHttpServer().requestHandler(req -> req.body().onComplete(b -> handler.handle(req)));
    return server.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS).actualPort();
  }

  private ModelClient client(String provider, int port) {
    return ModelClient.create(vertx, new ModelOptions().setProvider(provider).setApiKey(KEY).setModel("m")
      .setBaseUrl("http://127.0.0.1:" + port).setMaxRetries(0).setHttp2(false));
  }

  private static ModelException failure(Future<ModelResponse> reply) throws Exception {
    try {
      reply.await(20, TimeUnit.SECONDS);
    } catch (ModelException e) {
      return e;
    }
    throw new AssertionError("the call succeeded");
  }

  private static Future<ModelResponse> call(ModelClient client, boolean stream) {
    ModelRequest request = new ModelRequest().setModel("m").setMaxTokens(10).addMessage("user", "hi");
    return stream ? client.stream(request, ev -> { }) : client.send(request);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aRedirectIsNeverFollowed(boolean stream) throws Exception {
    AtomicInteger elsewhere = new AtomicInteger();
    int other = serve(req -> {
      elsewhere.incrementAndGet();
      req.response().putHeader("content-type", "application/json").end("{}");
    });
    int port = serve(req -> req.response().setStatusCode(303).putHeader("location", "http://127.0.0.1:" + other + "/steal").end());
    ModelException e = failure(call(client(ModelOptions.ANTHROPIC, port), stream));
    assertEquals(ModelException.Kind.PROTOCOL, e.kind());
    assertTrue(e.getMessage().contains("redirect"), e.getMessage());
    assertTrue(e.getMessage().contains("/steal"), e.getMessage());
    assertEquals(0, elsewhere.get(), "the request went to the redirect's target");
  }

  @ParameterizedTest
  @ValueSource(strings = {ModelOptions.ANTHROPIC, ModelOptions.OPENAI})
  void aBodyThatIsNotAModelResponseIsAnError(String provider) throws Exception {
    int port = serve(req -> req.response().putHeader("content-type", "application/json").end("{}"));
    ModelException e = failure(call(client(provider, port), false));
    assertEquals(ModelException.Kind.PROTOCOL, e.kind());
    assertTrue(e.getMessage().contains("is not a"), e.getMessage());
  }

  @Test
  void aWholeReplyLargerThanFourEventsIsRefusedWithoutReadingItAll() throws Exception {
    int port = serve(req -> {
      HttpServerResponse resp = req.response().setChunked(true).putHeader("content-type", "application/json");
      resp.write("{\"filler\": \"");
      Buffer chunk = Buffer.buffer("x".repeat(64 * 1024));
      // endless: the client must stop reading, not wait for an end
      vertx.setPeriodic(1, id -> {
        if (resp.closed() || resp.ended()) {
          vertx.cancelTimer(id);
        } else if (!resp.writeQueueFull()) {
          resp.write(chunk);
        }
      });
    });
    ModelClient client = ModelClient.create(vertx, new ModelOptions().setProvider(ModelOptions.ANTHROPIC).setApiKey(KEY)
      .setModel("m").setBaseUrl("http://127.0.0.1:" + port).setMaxRetries(0).setHttp2(false).setMaxEventSize(64 * 1024));
    ModelException e = failure(call(client, false));
    assertEquals(ModelException.Kind.PROTOCOL, e.kind());
    assertTrue(e.getMessage().contains("larger than 262144 bytes"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "upper", "truncated", "percent"})
  void anEchoedKeyIsRedactedFromEveryField(String variant) throws Exception {
    String echo = switch (variant) {
      case "upper" -> KEY.toUpperCase(Locale.ROOT);
      case "truncated" -> KEY.substring(0, 24);
      case "percent" -> URLEncoder.encode(KEY, StandardCharsets.UTF_8).replace("-", "%2D");
      default -> KEY;
    };
    int port = serve(req -> req.response().setStatusCode(400).putHeader("content-type", "application/json")
      .putHeader("request-id", "req_" + echo)
      .end(new JsonObject().put("type", "error").put("request_id", echo)
        .put("error", new JsonObject().put("type", "invalid_" + echo).put("message", "bad key " + echo + "!")).encode()));
    ModelException e = failure(call(client(ModelOptions.ANTHROPIC, port), false));
    assertEquals(ModelException.Kind.INVALID_REQUEST, e.kind());
    String everything = e.getMessage() + " | " + e.errorType() + " | " + e.requestId() + " | " + e.apiMessage();
    assertNoKey(everything, echo);
    assertTrue(e.apiMessage().startsWith("bad key [redacted]"), everything);
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "upper"})
  void aStreamErrorThatEchoesTheKeyIsRedacted(String variant) throws Exception {
    String echo = "upper".equals(variant) ? KEY.toUpperCase(Locale.ROOT) : KEY;
    int port = serve(req -> req.response().putHeader("content-type", "text/event-stream")
      .end("event: error\ndata: " + new JsonObject().put("type", "error").put("request_id", echo)
        .put("error", new JsonObject().put("type", echo).put("message", "m " + echo)).encode() + "\n\n"));
    ModelException e = failure(call(client(ModelOptions.ANTHROPIC, port), true));
    assertInstanceOf(ModelException.class, e);
    assertNoKey(e.getMessage() + " | " + e.errorType() + " | " + e.requestId(), echo);
  }

  private static void assertNoKey(String text, String echo) {
    String lower = text.toLowerCase(Locale.ROOT);
    assertFalse(lower.contains(echo.toLowerCase(Locale.ROOT)), text);
    assertFalse(lower.contains(KEY.substring(13, 33).toLowerCase(Locale.ROOT)), text);
    assertTrue(text.contains("[redacted]"), text);
  }
}
