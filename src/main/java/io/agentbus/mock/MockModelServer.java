package io.agentbus.mock;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A faithful stand-in for the Anthropic Messages and OpenAI Chat Completions APIs, for tests, the
 * offline demo and benchmarks.
 *
 * <p>Serves {@code POST /v1/messages} and {@code POST /v1/chat/completions}, streaming and not,
 * validating requests like the real APIs (same statuses, error bodies and messages), with the
 * {@code request-id} / {@code x-request-id} headers. Replies come from the {@linkplain
 * MockModelOptions#getMode() mode}'s {@link ReplyStrategy}. Faults ({@link MockFault}) come from
 * the {@code x-mock-fault} request header, then from the queue ({@link #enqueueFaults}, seeded by
 * {@link MockModelOptions#getFaults()}), then at random ({@link MockModelOptions#getFaultRate()}).
 * Latency uses timers; nothing blocks.
 *
 * <p>Speaks HTTP/1.1 and, unless {@linkplain MockModelOptions#isH2c() told not to}, h2c (upgrade
 * or prior knowledge), announcing {@link MockModelOptions#getMaxConcurrentStreams()} streams per
 * connection. {@code OPTIONS} requests are answered 204.
 */
public final class MockModelServer {

  /** Request header naming a fault for this request only (see {@link MockFault#parse}). */
  public static final String FAULT_HEADER = "x-mock-fault";

  private static final Logger log = LoggerFactory.getLogger(MockModelServer.class);
  /** Room for the request bodies of many streams at once (the protocol's default is 64 KiB). */
  private static final int HTTP2_CONNECTION_WINDOW = 16 * 1024 * 1024;

  private enum Api {
    ANTHROPIC,
    OPENAI
  }

  private final Vertx vertx;
  private final MockModelOptions options;
  private final ReplyStrategy strategy;
  private final Queue<MockFault> faults = new ConcurrentLinkedQueue<>();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger http2Requests = new AtomicInteger();
  private final AtomicInteger streamedRequests = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger optionsRequests = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger peakInFlight = new AtomicInteger();
  private HttpServer server;

  private MockModelServer(Vertx vertx, MockModelOptions options) {
    this.vertx = vertx;
    this.options = new MockModelOptions(options);
    this.strategy = ReplyStrategy.of(this.options);
    for (Object f : this.options.getFaults()) {
      faults.add(MockFault.parse(String.valueOf(f)));
    }
  }

  /**
   * Starts a server.
   *
   * @param vertx the Vert.x instance
   * @param options the options (copied)
   * @return the started server
   */
  public static Future<MockModelServer> start(Vertx vertx, MockModelOptions options) {
    Objects.requireNonNull(vertx, "'vertx' cannot be null");
    Objects.requireNonNull(options, "'options' cannot be null");
    MockModelServer mock = new MockModelServer(vertx, options);
    return mock.listen().map(mock);
  }

  private Future<HttpServer> listen() {
    Router router = Router.router(vertx);
    router.options().handler(ctx -> {
      optionsRequests.incrementAndGet();
      ctx.response().setStatusCode(204).end();
    });
    router.post().handler(BodyHandler.create(false).setBodyLimit(options.getMaxBodySize()));
    router.post("/v1/messages").handler(ctx -> handle(ctx, Api.ANTHROPIC));
    router.post("/v1/chat/completions").handler(ctx -> handle(ctx, Api.OPENAI));
    router.route().failureHandler(ctx -> {
      Api api = ctx.request().path().contains("chat/completions") ? Api.OPENAI : Api.ANTHROPIC;
      int status = ctx.statusCode() == 413 ? 413 : 500;
      ApiError e = status == 413
          ? new ApiError(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.", null, null)
          : new ApiError(500, api == Api.OPENAI ? "server_error" : "api_error", "Internal server error", null, null);
      sendError(ctx, api, requestId(api), e, null);
    });
    HttpServerOptions http = new HttpServerOptions().setHost(options.getHost()).setPort(options.getPort())
        .setHttp2ClearTextEnabled(options.isH2c())
        .setInitialSettings(new Http2Settings().setMaxConcurrentStreams(options.getMaxConcurrentStreams()))
        .setHttp2ConnectionWindowSize(HTTP2_CONNECTION_WINDOW);
    server = vertx.createHttpServer(http);
    server.connectionHandler(c -> connections.incrementAndGet());
    return server.requestHandler(router).listen().onSuccess(s ->
        log.info("mock model server listening on {}:{} (mode {})", options.getHost(), s.actualPort(), options.getMode()));
  }

  /**
   * @return the port the server listens on
   */
  public int actualPort() {
    return server.actualPort();
  }

  /**
   * @return the number of requests received on the model endpoints, including rejected ones
   */
  public int requestCount() {
    return requests.get();
  }

  /**
   * @return how many of {@link #requestCount()} asked for a streamed reply ({@code stream: true})
   */
  public int streamedRequestCount() {
    return streamedRequests.get();
  }

  /**
   * @return how many of {@link #requestCount()} came over HTTP/2
   */
  public int http2RequestCount() {
    return http2Requests.get();
  }

  /**
   * @return the number of {@code OPTIONS} requests (such as a client's h2c upgrade probe) so far
   */
  public int optionsCount() {
    return optionsRequests.get();
  }

  /**
   * @return the number of connections accepted so far
   */
  public int connectionCount() {
    return connections.get();
  }

  /**
   * @return the most model requests that were in progress at once (received, response not ended)
   */
  public int peakInFlight() {
    return peakInFlight.get();
  }

  /** Resets the request counters and the peak. */
  public void resetRequestCount() {
    requests.set(0);
    http2Requests.set(0);
    streamedRequests.set(0);
    peakInFlight.set(inFlight.get());
  }

  /**
   * Queues faults applied to the next requests, one each, in order.
   *
   * @param specs fault specs (see {@link MockFault#parse})
   * @return this
   */
  public MockModelServer enqueueFaults(String... specs) {
    for (String s : specs) {
      faults.add(MockFault.parse(s));
    }
    return this;
  }

  /**
   * Stops the server.
   *
   * @return completion of the close
   */
  public Future<Void> close() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  private void handle(RoutingContext ctx, Api api) {
    requests.incrementAndGet();
    if (ctx.request().version() == HttpVersion.HTTP_2) {
      http2Requests.incrementAndGet();
    }
    peakInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    ctx.addEndHandler(ar -> inFlight.decrementAndGet());
    String requestId = requestId(api);
    MockFault fault;
    try {
      fault = pickFault(ctx.request().headers().get(FAULT_HEADER));
    } catch (IllegalArgumentException e) {
      sendError(ctx, api, requestId, ApiError.invalid(FAULT_HEADER + ": " + e.getMessage()), null);
      return;
    }
    long delay = options.getLatencyMs() + (fault == null ? 0 : fault.latencyMs());
    if (options.getLatencyJitterMs() > 0) {
      delay += ThreadLocalRandom.current().nextLong(options.getLatencyJitterMs() + 1);
    }
    if (delay > 0) {
      vertx.setTimer(delay, t -> respond(ctx, api, requestId, fault));
    } else {
      respond(ctx, api, requestId, fault);
    }
  }

  private MockFault pickFault(String header) {
    if (header != null && !header.isBlank()) {
      return MockFault.parse(header);
    }
    MockFault queued = faults.poll();
    if (queued != null) {
      return queued;
    }
    if (options.getFaultRate() > 0 && ThreadLocalRandom.current().nextDouble() < options.getFaultRate()) {
      return MockFault.parse(options.getRandomFault());
    }
    return null;
  }

  private void respond(RoutingContext ctx, Api api, String requestId, MockFault fault) {
    MultiMap headers = ctx.request().headers();
    ApiError auth = api == Api.ANTHROPIC ? AnthropicValidator.checkHeaders(headers, options.getApiKey())
        : OpenAiValidator.checkHeaders(headers, options.getApiKey());
    if (auth != null) {
      sendError(ctx, api, requestId, auth, null);
      return;
    }
    Buffer raw = ctx.body().buffer();
    JsonObject body;
    try {
      body = raw == null ? null : new JsonObject(raw);
    } catch (DecodeException | ClassCastException e) {
      body = null;
    }
    if (body == null) {
      sendError(ctx, api, requestId, api == Api.ANTHROPIC
          ? ApiError.invalid("There was an issue with your request's JSON: the body is not a valid JSON object")
          : ApiError.invalid("We could not parse the JSON body of your request. (HINT: This likely means you aren't using "
              + "your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"),
          null);
      return;
    }
    ApiError invalid = api == Api.ANTHROPIC ? AnthropicValidator.checkBody(body) : OpenAiValidator.checkBody(body);
    if (invalid != null) {
      log.debug("mock rejected a request: {}", invalid.message());
      sendError(ctx, api, requestId, invalid, null);
      return;
    }
    boolean stream = body.getBoolean("stream", false);
    if (stream) {
      streamedRequests.incrementAndGet();
    }
    if (fault != null && httpFault(ctx, api, requestId, fault, stream)) {
      return;
    }
    MockConversation conversation = api == Api.ANTHROPIC ? MockConversation.fromAnthropic(body)
        : MockConversation.fromOpenAi(body);
    MockReply reply = strategy.reply(conversation);
    PreparedReply prepared = api == Api.ANTHROPIC
        ? PreparedReply.of(reply, body.getString("model"), "msg_", "toolu_", raw.length())
        : PreparedReply.of(reply, body.getString("model"), "chatcmpl-", "call_", raw.length());
    HttpServerResponse resp = ctx.response();
    resp.putHeader(api == Api.ANTHROPIC ? "request-id" : "x-request-id", requestId);
    if (!stream) {
      JsonObject json = api == Api.ANTHROPIC ? AnthropicWriter.message(prepared) : OpenAiWriter.completion(prepared);
      resp.putHeader("content-type", "application/json").end(json.toBuffer());
      return;
    }
    boolean includeUsage = body.getJsonObject("stream_options", new JsonObject()).getBoolean("include_usage", false);
    List<String> frames = api == Api.ANTHROPIC ? AnthropicWriter.events(prepared)
        : OpenAiWriter.chunks(prepared, includeUsage);
    resp.setChunked(true).putHeader("content-type", "text/event-stream; charset=utf-8")
        .putHeader("cache-control", "no-cache");
    int cut = fault == null ? -1 : fault.afterEvents() >= 0 ? Math.min(fault.afterEvents(), frames.size())
        : Math.max(1, frames.size() / 2);
    String tail = null;
    if (fault != null && fault.kind() == MockFault.Kind.STREAM_ERROR) {
      tail = api == Api.ANTHROPIC ? AnthropicWriter.errorFrame("overloaded_error", "Overloaded", requestId)
          : OpenAiWriter.errorFrame("server_error", "The server had an error while processing your request.");
    } else if (fault == null || fault.kind() != MockFault.Kind.BROKEN_STREAM) {
      cut = -1;
    }
    writeFrames(ctx, frames, 0, cut, tail);
  }

  /** Applies an HTTP-level fault; returns false when the fault only affects the stream body. */
  private boolean httpFault(RoutingContext ctx, Api api, String requestId, MockFault fault, boolean stream) {
    ApiError e;
    switch (fault.kind()) {
      case RATE_LIMIT -> e = new ApiError(429, api == Api.ANTHROPIC ? "rate_limit_error" : "requests",
          api == Api.ANTHROPIC ? "Number of request tokens has exceeded your per-minute rate limit"
              : "Rate limit reached for requests", null, api == Api.OPENAI ? "rate_limit_exceeded" : null);
      case OVERLOADED -> e = overloaded(api);
      case API_ERROR -> e = new ApiError(500, api == Api.ANTHROPIC ? "api_error" : "server_error",
          api == Api.ANTHROPIC ? "Internal server error"
              : "The server had an error while processing your request. Sorry about that!", null, null);
      case BROKEN_STREAM -> {
        if (stream) {
          return false;
        }
        drop(ctx);
        return true;
      }
      case STREAM_ERROR -> {
        if (stream) {
          return false;
        }
        e = overloaded(api);
      }
      default -> {
        return false;
      }
    }
    sendError(ctx, api, requestId, e, fault);
    return true;
  }

  private static ApiError overloaded(Api api) {
    return api == Api.ANTHROPIC ? new ApiError(529, "overloaded_error", "Overloaded", null, null)
        : new ApiError(503, "server_error", "The engine is currently overloaded, please try again later", null, null);
  }

  private void writeFrames(RoutingContext ctx, List<String> frames, int from, int cut, String tail) {
    HttpServerResponse resp = ctx.response();
    int i = from;
    Future<Void> written = null;
    while (true) {
      if (resp.closed() || resp.ended()) {
        return;
      }
      if (i == frames.size() || i == cut) {
        if (tail != null) {
          resp.end(tail);
        } else if (i == cut && written != null) {
          // an HTTP/2 reset would discard frames not yet on the wire
          written.onComplete(ar -> drop(ctx));
        } else if (i == cut) {
          drop(ctx);
        } else {
          resp.end();
        }
        return;
      }
      written = resp.write(frames.get(i++));
      if (options.getStreamDelayMs() > 0) {
        int next = i;
        vertx.setTimer(options.getStreamDelayMs(), t -> writeFrames(ctx, frames, next, cut, tail));
        return;
      }
    }
  }

  /** Breaks off the response: HTTP/2 resets its stream (the connection's other streams live on), HTTP/1.x closes. */
  private static void drop(RoutingContext ctx) {
    if (ctx.request().version() == HttpVersion.HTTP_2) {
      ctx.response().reset();
    } else {
      ctx.request().connection().close();
    }
  }

  private void sendError(RoutingContext ctx, Api api, String requestId, ApiError e, MockFault fault) {
    HttpServerResponse resp = ctx.response();
    if (resp.ended() || resp.closed()) {
      return;
    }
    resp.setStatusCode(e.status()).putHeader("content-type", "application/json")
        .putHeader(api == Api.ANTHROPIC ? "request-id" : "x-request-id", requestId);
    if (fault != null) {
      if (fault.retryAfter() != null) {
        resp.putHeader("retry-after", fault.retryAfter());
      } else if (fault.kind() == MockFault.Kind.RATE_LIMIT && fault.retryAfterMs() == null) {
        resp.putHeader("retry-after", "1");
      }
      if (fault.retryAfterMs() != null) {
        resp.putHeader("retry-after-ms", fault.retryAfterMs());
      }
      if (fault.shouldRetry() != null) {
        resp.putHeader("x-should-retry", fault.shouldRetry().toString());
      }
    }
    JsonObject body = api == Api.ANTHROPIC ? e.anthropicBody(requestId) : e.openAiBody();
    resp.end(body.toBuffer());
  }

  private static String requestId(Api api) {
    return api == Api.ANTHROPIC ? "req_" + PreparedReply.random(24) : "req_" + PreparedReply.random(32).toLowerCase();
  }

  /**
   * Runs the mock on its own: {@code [--port N] [--host H] [--mode demo|rules|script] [--script FILE]
   * [--api-key KEY] [--latency MS] [--max-parallel-tools K]}. The port defaults to 8090; a script
   * file (a JSON array of replies or a script object) implies script mode.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    MockModelOptions options = new MockModelOptions().setPort(8090);
    String scriptFile = null;
    boolean modeGiven = false;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--port" -> options.setPort(Integer.parseInt(args[i + 1]));
        case "--host" -> options.setHost(args[i + 1]);
        case "--mode" -> {
          options.setMode(args[i + 1]);
          modeGiven = true;
        }
        case "--script" -> scriptFile = args[i + 1];
        case "--api-key" -> options.setApiKey(args[i + 1]);
        case "--latency" -> options.setLatencyMs(Long.parseLong(args[i + 1]));
        case "--max-parallel-tools" -> options.setMaxParallelTools(Integer.parseInt(args[i + 1]));
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (scriptFile != null && !modeGiven) {
      options.setMode(MockModelOptions.MODE_SCRIPT);
    }
    Vertx vertx = Vertx.vertx();
    Future<MockModelOptions> ready = scriptFile == null ? Future.succeededFuture(options)
        : vertx.fileSystem().readFile(scriptFile).map(buf -> {
          Object json = io.vertx.core.json.Json.decodeValue(buf);
          return json instanceof JsonArray arr ? options.setScriptReplies(arr) : options.setScript((JsonObject) json);
        });
    ready.compose(o -> start(vertx, o)).onComplete(ar -> {
      if (ar.succeeded()) {
        System.out.println("Mock model server listening on port " + ar.result().actualPort());
      } else {
        System.err.println("Mock model server failed to start: " + ar.cause().getMessage());
        vertx.close();
      }
    });
  }
}
