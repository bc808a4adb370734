package io.agentbus.http;

import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.mcp.auth.OAuthManager;
import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.StaticHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP chat API (see {@code docs/http-api.md}): conversations, turns as JSON or
 * Server-Sent Events, the tool catalog, health, Prometheus metrics and a small chat page.
 * It only talks to the rest of Agentbus over the event bus.
 *
 * <p>Deploy an instance made with {@link #HttpApiVerticle(HttpApiOptions)}, or the class with
 * the options' JSON as config. Each instance has its own listener and its own turn admission
 * limit. {@code /v1/*} needs a bearer token when tokens are configured; {@code /},
 * {@code /health} and {@code /metrics} are always open. Without tokens the API listens on
 * loopback only and says so in a warning.
 *
 * <p>It speaks HTTP/1.1 (no cleartext HTTP/2) and keeps its connections to account
 * ({@link ConnectionGuard}): header and idle timeouts, and a connection limit.
 */
public class HttpApiVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(HttpApiVerticle.class);
  /** SSE comment sent this often while a turn streams, so proxies keep the connection. */
  static final long HEARTBEAT_MS = 15_000;
  private static final int[] ROUTER_ERRORS = {400, 401, 403, 404, 405, 406, 413, 415, 500};

  private HttpApiOptions options;
  private AtomicInteger turnsInFlight = new AtomicInteger();
  private AtomicInteger connectionsOpen = new AtomicInteger();
  /** Cleared by the first instance of a group to start, so the group logs its start-up once. */
  private AtomicBoolean firstToStart = new AtomicBoolean(true);
  private Responses responses;
  private Admission admission;
  private HttpServer server;
  private boolean demoModel;

  /** Options from {@code config()}. */
  public HttpApiVerticle() {
  }

  /** @param options the settings (copied) */
  public HttpApiVerticle(HttpApiOptions options) {
    this.options = new HttpApiOptions(options);
  }

  /**
   * Says that the conversations talk to the built-in demo (mock) model, which {@code GET /info}
   * reports so the chat page can show it. Set before deploying.
   *
   * @return this
   */
  public HttpApiVerticle setDemoModel(boolean demoModel) {
    this.demoModel = demoModel;
    return this;
  }

  /**
   * Several instances (one per event loop) that act as one API: they share
   * {@code http.maxInFlightTurns} and {@code http.maxConnections}, so the limits hold for the
   * process, not per instance, and they log their start-up once. Give them a real port: Vert.x
   * shares one listener between servers asking for the same port, but with port 0 each would
   * bind a port of its own ({@link #freePort(String)} picks one).
   */
  public static final class Group {
    private final AtomicInteger turnsInFlight = new AtomicInteger();
    private final AtomicInteger connectionsOpen = new AtomicInteger();
    private final AtomicBoolean firstToStart = new AtomicBoolean(true);
    private final List<HttpApiVerticle> members = new CopyOnWriteArrayList<>();

    /** @return a new member with these settings (copied), for {@code deployVerticle(() -> group.newMember(o), ...)} */
    public HttpApiVerticle newMember(HttpApiOptions options) {
      HttpApiVerticle api = new HttpApiVerticle(options);
      api.turnsInFlight = turnsInFlight;
      api.connectionsOpen = connectionsOpen;
      api.firstToStart = firstToStart;
      members.add(api);
      return api;
    }

    /** @return the members made so far */
    public List<HttpApiVerticle> members() {
      return members;
    }

    /**
     * @return a port free on {@code host} right now, for a group configured with port 0 (the
     *     OS picks it; the window until the group binds it is short)
     */
    public static int freePort(String host) {
      try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName(host))) {
        return probe.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("no free port on " + host, e);
      }
    }
  }

  @Override
  public Future<?> start() {
    // turn results come back with it, across JVMs on a cluster node without conversations
    SharedJsonCodec.register(vertx);
    if (options == null) {
      options = new HttpApiOptions(config());
    }
    AgentbusMetrics metrics = AgentbusMetrics.get(vertx);
    responses = new Responses(metrics, options.getRetryAfterSeconds());
    admission = new Admission(options.getMaxInFlightTurns(), turnsInFlight, metrics);
    BusRequests bus = new BusRequests(vertx);
    BearerAuth auth = new BearerAuth(options.getTokens(), responses);
    ConversationRoutes conversations = new ConversationRoutes(vertx, bus, responses, admission, HEARTBEAT_MS);
    InfoRoutes info = new InfoRoutes(bus, responses, metrics, options.getServers(), admission);
    OAuthRoutes oauth = new OAuthRoutes(bus, responses);

    ConnectionGuard connections = new ConnectionGuard(vertx, options, connectionsOpen, metrics);

    Router router = Router.router(vertx);
    router.route().handler(ctx -> {
      connections.track(ctx);
      ctx.response().putHeader("X-Content-Type-Options", "nosniff");
      ctx.next();
    }).failureHandler(this::onFailure);
    router.get("/").handler(StaticHandler.create("webroot"));
    router.get("/health").handler(guard(info::health));
    router.get("/metrics").handler(guard(info::metrics));
    router.get("/info").handler(ctx -> responses.json(ctx, 200, new JsonObject().put("demo", demoModel)));
    router.get(OAuthRoutes.CALLBACK_PATH).handler(guard(oauth::callback));
    router.route("/v1/*").handler(auth);
    router.route("/v1/*").handler(BodyHandler.create(false).setBodyLimit(options.getMaxBodyBytes()));
    router.post("/v1/conversations").handler(guard(conversations::create));
    router.get("/v1/conversations").handler(guard(conversations::list));
    router.post("/v1/conversations/:id/messages").handler(guard(conversations::send));
    router.post("/v1/conversations/:id/elicitations/:elicitationId").handler(guard(conversations::answer));
    router.get("/v1/conversations/:id/elicitations").handler(guard(conversations::elicitations));
    router.get("/v1/conversations/:id").handler(guard(conversations::get));
    router.delete("/v1/conversations/:id").handler(guard(conversations::delete));
    ApprovalRoutes approvals = new ApprovalRoutes(bus, responses);
    router.get("/v1/conversations/:id/approvals").handler(guard(approvals::list));
    router.post("/v1/conversations/:id/approvals/:toolUseId").handler(guard(approvals::answer));
    router.get("/v1/conversations/:id/events").handler(guard(new ConversationWatch(vertx, bus, responses, HEARTBEAT_MS)::watch));
    router.get("/v1/tools").handler(guard(info::tools));
    router.get("/v1/mcp/:server/authorize").handler(guard(oauth::authorize));
    for (int code : ROUTER_ERRORS) {
      // the code is passed on: a failure raised while routing (a malformed percent-escape)
      // reaches this handler with no status on the context
      router.errorHandler(code, ctx -> onRouterError(ctx, code));
    }

    String host = options.effectiveHost();
    boolean announce = firstToStart.getAndSet(false);
    if (!auth.enabled() && announce) {
      // Only a host the user set is worth mentioning; the default is no choice of theirs.
      String configured = options.getHost();
      boolean ignored = !configured.equals(HttpApiOptions.DEFAULT_HOST) && !configured.equals(host);
      LOG.warn("No API tokens configured: the HTTP API has no authentication, so it listens on {} only{}",
        HttpApiOptions.LOOPBACK, ignored ? " (configured host '" + configured + "' ignored until http.tokens are set)" : "");
    }
    // h2c off: a cleartext HTTP/2 client would reach the connection handler only after its
    // preface, so a connection that sends nothing would escape the guard
    // the API serves no WebSocket: without the compression handshakers Vert.x leaves the
    // WebSocket extension handler out of every connection's pipeline, which every response passed
    HttpServerOptions serverOptions = new HttpServerOptions().setHttp2ClearTextEnabled(false)
      .setPerMessageWebSocketCompressionSupported(false).setPerFrameWebSocketCompressionSupported(false);
    return vertx.createHttpServer(serverOptions)
      .connectionHandler(connections::accept)
      .requestHandler(connections.requests(router))
      .listen(options.getPort(), host).map(s -> {
        server = s;
        if (announce) {
          // where a connection that finds itself unauthorized sends the person back (a server's oauth.redirectUri wins)
          boolean anyOrLoopback = HttpApiOptions.LOOPBACK.equals(host) || "0.0.0.0".equals(host) || "::".equals(host);
          OAuthManager.of(vertx).defaultRedirectUri("http://" + (anyOrLoopback ? "localhost" : host) + ":" + s.actualPort()
            + OAuthRoutes.CALLBACK_PATH);
          LOG.info("HTTP API listening on http://{}:{} ({} tokens)", host, s.actualPort(), options.getTokens().size());
        }
        return s;
      });
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  /** @return the port the API listens on (after start) */
  public int actualPort() {
    return server == null ? -1 : server.actualPort();
  }

  /** @return the interface the API listens on (loopback when no tokens are configured) */
  public String host() {
    return options == null ? null : options.effectiveHost();
  }

  /**
   * Refuses new turns from now on (503 with {@code Retry-After}; {@code /health} says
   * DRAINING) and completes when the turns this instance admitted have finished. Callable
   * from any thread.
   */
  public Future<Void> drain() {
    Promise<Void> drained = Promise.promise();
    context.runOnContext(v -> admission.drain().onComplete(drained));
    return drained.future();
  }

  private Handler<RoutingContext> guard(Handler<RoutingContext> handler) {
    return ctx -> {
      try {
        handler.handle(ctx);
      } catch (ApiError e) {
        responses.error(ctx, e);
      }
    };
  }

  /**
   * Every {@code ctx.fail(...)} of a route comes here first: a client that went away is only
   * logged (at debug: nobody is left to answer), the rest is answered as JSON.
   */
  private void onFailure(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure instanceof ApiError e) {
      responses.error(ctx, e);
      return;
    }
    String what = ctx.request().method() + " " + ctx.request().path();
    if (failure instanceof HttpClosedException || ctx.response().closed()) {
      LOG.debug("{}: the client went away before it was answered ({})", what, String.valueOf(failure));
      return;
    }
    int status = ctx.statusCode();
    if (status >= 400 && status != 500) {
      onRouterError(ctx, status);
    } else if (status >= 200 && status < 400) {
      // vertx-web fails with 200 when reading the request itself failed
      responses.error(ctx, ApiError.badRequest("the request could not be read"
        + (failure == null ? "" : ": " + failure.getMessage())));
    } else {
      onRouterError(ctx, 500);
    }
  }

  private void onRouterError(RoutingContext ctx, int code) {
    if (ctx.failure() instanceof ApiError e) {
      responses.error(ctx, e);
      return;
    }
    String what = ctx.request().method() + " " + ctx.request().path();
    ApiError error = switch (code) {
      case 404 -> ApiError.notFound("no such resource: " + what);
      case 405 -> ApiError.of(405, "method not allowed: " + what);
      case 413 -> ApiError.of(413, "the body exceeds the limit of " + options.getMaxBodyBytes() + " bytes");
      case 400 -> ApiError.badRequest(badRequest(ctx, what));
      case 500 -> null;
      default -> ApiError.of(code, "request refused");
    };
    if (error == null) {
      LOG.warn("{} failed", what, ctx.failure());
      error = ApiError.of(500, "internal error");
    }
    responses.error(ctx, error);
  }

  /** @return what is wrong with a request vertx-web refused with 400 */
  private static String badRequest(RoutingContext ctx, String what) {
    Throwable failure = ctx.failure();
    if (failure != null && failure.getMessage() != null) {
      return "bad request: " + failure.getMessage();
    }
    // a failure while routing leaves none on the context: the path or the query did not decode
    return "bad request: " + what + " is not a valid path and query (a malformed percent-escape?)";
  }
}
