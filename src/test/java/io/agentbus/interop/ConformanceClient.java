package io.agentbus.interop;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.ElicitationForm;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.ServerRequest;
import io.agentbus.mcp.ServerRequestHandler;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The client the MCP conformance suite tests ({@code interop/conformance-client} runs this
 * main): Agentbus' own {@link McpClient} over the transport a plain {@code url} gets
 * (Streamable HTTP), connected to the suite's scenario server, doing what the scenario asks,
 * then closed. The server URL is the last argument; the scenario comes from
 * {@code MCP_CONFORMANCE_SCENARIO}, its details (JSON) from {@code MCP_CONFORMANCE_CONTEXT}.
 * Exits 0 when the client saw what it expected; the suite's server judges the rest.
 */
public final class ConformanceClient {

  /** Bounds every request, below the suite's own 30 s limit for the whole client run. */
  private static final long TIMEOUT_MS = 20_000;

  /** What one scenario does with a connected client. */
  @FunctionalInterface
  interface Scenario {
    Future<Void> run(McpClient client, JsonObject context);
  }

  /** The client scenarios, by the suite's name. Add new ones here. */
  static final Map<String, Scenario> SCENARIOS = Map.of(
    // the handshake is the test: connect() runs initialize and notifications/initialized
    "initialize", (client, ctx) -> Future.succeededFuture(),
    "tools_call", (client, ctx) -> call(client, "add_numbers", new JsonObject().put("a", 5).put("b", 3), "8"),
    // the server answers the call only on a GET that resumes the broken POST stream
    "sse-retry", (client, ctx) -> call(client, "test_reconnection", new JsonObject(), null),
    // the server elicits during the call; ANSWERS accepts with the schema's defaults filled in
    "elicitation-sep1034-client-defaults", (client, ctx) -> call(client, "test_client_elicitation_defaults", new JsonObject(),
      "Elicitation completed"));

  /** Answers the scenario servers' requests: an elicitation is accepted, the schema's defaults applied (SEP-1034). */
  static final ServerRequestHandler ANSWERS = new ServerRequestHandler() {
    @Override
    public JsonObject capabilities() {
      return new JsonObject().put("elicitation", new JsonObject().put("form", new JsonObject()));
    }

    @Override
    public Future<JsonObject> handle(ServerRequest request) {
      if (!"elicitation/create".equals(request.method())) {
        return Future.failedFuture(new McpException(McpException.Kind.RPC_ERROR, "Method not found: " + request.method(),
          JsonRpc.METHOD_NOT_FOUND, null, null));
      }
      JsonObject content = ElicitationForm.parse(request.params().getValue("requestedSchema")).withDefaults(new JsonObject());
      return Future.succeededFuture(new JsonObject().put("action", "accept").put("content", content));
    }
  };

  private ConformanceClient() {
  }

  public static void main(String[] args) {
    String scenarioName = System.getenv("MCP_CONFORMANCE_SCENARIO");
    Scenario scenario = scenarioName == null ? null : SCENARIOS.get(scenarioName);
    if (args.length == 0 || scenario == null) {
      System.err.println("usage: MCP_CONFORMANCE_SCENARIO=<one of " + SCENARIOS.keySet() + "> conformance-client <server-url>"
        + (scenarioName == null ? "" : " (unknown scenario '" + scenarioName + "')"));
      System.exit(2);
    }
    String context = System.getenv("MCP_CONFORMANCE_CONTEXT");
    JsonObject ctx = context == null || context.isBlank() ? new JsonObject() : new JsonObject(context);
    Vertx vertx = Vertx.vertx();
    int code = 0;
    try {
      run(vertx, scenario, args[args.length - 1], ctx).toCompletionStage().toCompletableFuture()
        .get(3 * TIMEOUT_MS, TimeUnit.MILLISECONDS);
      System.out.println("scenario " + scenarioName + ": done");
    } catch (Exception e) {
      System.err.println("scenario " + scenarioName + " failed: " + e);
      e.printStackTrace();
      code = 1;
    }
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("closing Vert.x: " + e);
    }
    System.exit(code);
  }

  private static Future<Void> run(Vertx vertx, Scenario scenario, String url, JsonObject ctx) {
    // the mcp.json entry shape a user writes for a remote server
    McpServerOptions options = new McpServerOptions(new JsonObject()
      .put("name", "conformance")
      .put("url", url)
      .put("timeoutMs", TIMEOUT_MS)
      .put("connectTimeoutMs", TIMEOUT_MS));
    McpClient client = McpClient.create(vertx, options).serverRequestHandler(ANSWERS);
    return client.connect()
      .compose(init -> {
        System.out.println("connected: " + init.getJsonObject("serverInfo") + ", protocol " + client.protocolVersion()
          + ", tools " + client.tools().stream().map(t -> t.getString("name")).toList());
        return scenario.run(client, ctx);
      })
      .eventually(client::close);
  }

  /** Calls {@code tool}; fails on an error result or when the text lacks {@code expected}. */
  private static Future<Void> call(McpClient client, String tool, JsonObject arguments, String expected) {
    return client.callTool(tool, arguments, new CallOptions()).compose(result -> {
      System.out.println(tool + " " + arguments.encode() + " -> " + result.encode());
      if (result.getBoolean("isError", false)) {
        return Future.failedFuture(tool + " returned an error result");
      }
      if (expected != null && !result.encode().contains(expected)) {
        return Future.failedFuture(tool + " result lacks '" + expected + "'");
      }
      return Future.succeededFuture();
    });
  }
}
