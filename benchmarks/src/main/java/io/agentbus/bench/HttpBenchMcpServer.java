package io.agentbus.bench;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.ServerSocket;
import java.util.UUID;

/**
 * The bench MCP server over Streamable HTTP, on Vert.x Web: {@code HttpBenchMcpServer [--tools N]
 * [--latency-ms L] [--probe-port P]} serves {@code POST /mcp} with plain JSON responses (no
 * SSE), the same {@code t0..t<N-1>} and {@code noop} tools as {@link BenchMcpServer}, latency
 * from timers.
 * Prints {@code READY <port>}; runs until stdin closes. Sessions are not checked: this is a
 * load target, not a conformance test. With {@code --probe-port}, each instance's event loop runs
 * a {@link FloorProbe} timer, and the worst lateness of the probes and of the tool timers goes to
 * the harness as {@code tool}.
 */
public final class HttpBenchMcpServer extends VerticleBase {

  private static final long MAX_STREAMS = 1_000_000;
  private int tools;
  private int plainTools;
  private long latencyMs;
  private FloorProbe.Reporter floor;

  @Override
  public Future<?> start() {
    tools = config().getInteger("tools");
    plainTools = config().getInteger("plainTools", Integer.MAX_VALUE);
    latencyMs = config().getLong("latencyMs");
    floor = FloorProbe.Reporter.of(FloorProbe.TOOL, config().getInteger("probePort", 0));
    floor.probe(vertx);
    Router router = Router.router(vertx);
    router.post("/mcp").handler(BodyHandler.create(false).setBodyLimit(4 * 1024 * 1024)).handler(this::post);
    router.delete("/mcp").handler(ctx -> ctx.response().setStatusCode(200).end());
    router.get("/mcp").handler(ctx -> ctx.response().setStatusCode(405).end());
    // No HTTP/2 stream limit to speak of: the JDK client (LangChain4j's MCP transport, h2c by
    // default) keeps one connection and fails calls beyond the server's limit (100 by default).
    return vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(config().getInteger("port"))
        .setInitialSettings(new Http2Settings().setMaxConcurrentStreams(MAX_STREAMS)))
      .requestHandler(router).listen();
  }

  private void post(RoutingContext ctx) {
    JsonObject msg = ctx.body().asJsonObject();
    Object id = msg.getValue("id");
    String method = msg.getString("method", "");
    if (id == null) {
      ctx.response().setStatusCode(202).end();
      return;
    }
    JsonObject params = msg.getJsonObject("params", new JsonObject());
    switch (method) {
      case "initialize" -> {
        ctx.response().putHeader("Mcp-Session-Id", UUID.randomUUID().toString());
        reply(ctx, id, new JsonObject().put("protocolVersion", params.getString("protocolVersion", "2025-06-18"))
          .put("capabilities", new JsonObject().put("tools", new JsonObject()))
          .put("serverInfo", new JsonObject().put("name", "agentbus-bench-http").put("version", "1.0")));
      }
      case "ping" -> reply(ctx, id, new JsonObject());
      case "tools/list" -> {
        JsonArray list = new JsonArray();
        for (int i = 0; i < tools; i++) {
          list.add(i < plainTools ? tool("t" + i, "Bench tool " + i) : BenchMcpServer.realisticTool("t" + i));
        }
        list.add(tool("noop", "Answers at once"));
        reply(ctx, id, new JsonObject().put("tools", list));
      }
      case "tools/call" -> {
        String name = params.getString("name", "");
        JsonObject result = new JsonObject().put("content", new JsonArray()
          .add(new JsonObject().put("type", "text").put("text", name + " done"))).put("isError", false);
        if (latencyMs > 0 && !"noop".equals(name)) {
          long due = System.nanoTime() + latencyMs * 1_000_000;
          vertx.setTimer(latencyMs, t -> {
            floor.fired(due);
            reply(ctx, id, result);
          });
        } else {
          reply(ctx, id, result);
        }
      }
      default -> ctx.response().putHeader("content-type", "application/json").end(new JsonObject().put("jsonrpc", "2.0")
        .put("id", id).put("error", new JsonObject().put("code", -32601).put("message", "Method not found")).toBuffer());
    }
  }

  private static JsonObject tool(String name, String description) {
    return new JsonObject().put("name", name).put("description", description)
      .put("inputSchema", new JsonObject().put("type", "object").put("properties", new JsonObject()));
  }

  private static void reply(RoutingContext ctx, Object id, JsonObject result) {
    ctx.response().putHeader("content-type", "application/json")
      .end(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result).toBuffer());
  }

  public static void main(String[] args) throws Exception {
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
      .setLevel(ch.qos.logback.classic.Level.WARN);
    JsonObject config = new JsonObject().put("tools", 8).put("latencyMs", 0L);
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--tools" -> config.put("tools", Integer.parseInt(args[i + 1]));
        case "--plain-tools" -> config.put("plainTools", Integer.parseInt(args[i + 1]));
        case "--latency-ms" -> config.put("latencyMs", Long.parseLong(args[i + 1]));
        case "--probe-port" -> config.put("probePort", Integer.parseInt(args[i + 1]));
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    try (ServerSocket probe = new ServerSocket(0)) {
      config.put("port", probe.getLocalPort());
    }
    Vertx vertx = Vertx.vertx();
    vertx.deployVerticle(HttpBenchMcpServer.class, new DeploymentOptions().setInstances(2).setConfig(config))
      .toCompletionStage().toCompletableFuture().get();
    System.out.println("READY " + config.getInteger("port"));
    System.out.flush();
    while (System.in.read() >= 0) {
      // runs until the parent closes our stdin
    }
    vertx.close();
    System.exit(0);
  }
}
