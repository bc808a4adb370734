package io.agentbus.interop;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.ElicitationForm;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.auth.InMemoryTokenStore;
import io.agentbus.mcp.auth.OAuthManager;
import io.agentbus.options.EnvExpander;
import io.agentbus.testing.FollowRedirectPrompt;
import io.agentbus.mcp.ServerRequest;
import io.agentbus.mcp.ServerRequestHandler;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /** The Client ID Metadata Document URL the suite's CIMD scenarios expect as client_id. */
  static final String CIMD_URL = "https://conformance-test.local/client-metadata.json";
  /** The redirect URI registered; the prompt reads the code from the redirect, nothing listens there. */
  static final String REDIRECT_URI = "http://localhost:3000/callback";

  /** The OAuth scenarios that run the authorization code flow, then call the scenario server's tool. */
  static final List<String> AUTH_CODE_SCENARIOS = List.of("auth/metadata-default", "auth/metadata-var1",
    "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd", "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined", "auth/scope-step-up",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
    "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/offline-access-scope", "auth/offline-access-not-supported");

  /**
   * Scenarios where the client must refuse to go on: they pass when connecting fails with an
   * {@code AUTHORIZATION_FAILED} error (the suite accepts a failing client for them).
   */
  static final Set<String> MUST_REFUSE = Set.of("auth/resource-mismatch", "auth/scope-retry-limit");

  /** The client scenarios, by the suite's name. Add new ones here. */
  static final Map<String, Scenario> SCENARIOS = scenarios();

  private static Map<String, Scenario> scenarios() {
    Map<String, Scenario> m = new LinkedHashMap<>();
    // the handshake is the test: connect() runs initialize and notifications/initialized
    m.put("initialize", (client, ctx) -> Future.succeededFuture());
    m.put("tools_call", (client, ctx) -> call(client, "add_numbers", new JsonObject().put("a", 5).put("b", 3), "8"));
    // the server answers the call only on a GET that resumes the broken POST stream
    m.put("sse-retry", (client, ctx) -> call(client, "test_reconnection", new JsonObject(), null));
    // the server elicits during the call; ANSWERS accepts with the schema's defaults filled in
    m.put("elicitation-sep1034-client-defaults", (client, ctx) -> call(client, "test_client_elicitation_defaults",
      new JsonObject(), "Elicitation completed"));
    // connect() lists the tools (authorized); the call may need more scope (step-up)
    AUTH_CODE_SCENARIOS.forEach(name -> m.put(name, (client, ctx) -> call(client, "test-tool", new JsonObject(), null)));
    MUST_REFUSE.forEach(name -> m.put(name, (client, ctx) -> Future.failedFuture("the client should have refused")));
    // machine to machine: connect() (with its tools/list) is the test
    m.put("auth/client-credentials-basic", (client, ctx) -> Future.succeededFuture());
    m.put("auth/client-credentials-jwt", (client, ctx) -> Future.succeededFuture());
    // enterprise-managed: the ID token (from the context) is exchanged at the IdP, then at the AS
    m.put("auth/cross-app-access-complete-flow", (client, ctx) -> Future.succeededFuture());
    return m;
  }

  /** The mcp.json {@code "oauth"} object a user would write for the scenario, or {@code null} for none. */
  static JsonObject oauthFor(String scenario, JsonObject ctx) {
    if (!scenario.startsWith("auth/")) {
      return null;
    }
    JsonObject o = new JsonObject().put("redirectUri", REDIRECT_URI).put("clientMetadataUrl", CIMD_URL);
    switch (scenario) {
      case "auth/pre-registration" -> o.put("clientId", ctx.getString("client_id"))
        .put("clientSecret", ctx.getString("client_secret"));
      case "auth/client-credentials-basic" -> o.put("grant", "client_credentials")
        .put("clientId", ctx.getString("client_id")).put("clientSecret", ctx.getString("client_secret"));
      case "auth/client-credentials-jwt" -> o.put("grant", "client_credentials")
        .put("clientId", ctx.getString("client_id")).put("privateKey", ctx.getString("private_key_pem"))
        .put("signingAlgorithm", ctx.getString("signing_algorithm", "ES256"));
      case "auth/cross-app-access-complete-flow" -> o.put("grant", "identity_assertion")
        .put("clientId", ctx.getString("client_id")).put("clientSecret", ctx.getString("client_secret"))
        .put("idpTokenEndpoint", ctx.getString("idp_token_endpoint")).put("idpClientId", ctx.getString("idp_client_id"));
      default -> { }
    }
    return o;
  }

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
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx))
      .identityTokens((server, tenant) -> ctx.getString("idp_id_token") != null
        ? Future.succeededFuture(ctx.getString("idp_id_token")) : Future.failedFuture("the context holds no idp_id_token"));
    int code = 0;
    try {
      Future<Void> outcome = run(vertx, scenario, args[args.length - 1], oauthFor(scenarioName, ctx), ctx);
      if (MUST_REFUSE.contains(scenarioName)) {
        outcome = refused(outcome);
      }
      outcome.toCompletionStage().toCompletableFuture().get(3 * TIMEOUT_MS, TimeUnit.MILLISECONDS);
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

  /** Succeeds when connecting failed because the client refused to authorize. */
  private static Future<Void> refused(Future<Void> outcome) {
    return outcome.transform(ar -> {
      if (ar.succeeded()) {
        return Future.failedFuture("the client went on where it should have refused");
      }
      if (ar.cause() instanceof McpException e && e.kind() == McpException.Kind.AUTHORIZATION_FAILED) {
        System.out.println("refused as expected: " + e.getMessage());
        return Future.succeededFuture();
      }
      return Future.failedFuture(ar.cause());
    });
  }

  private static Future<Void> run(Vertx vertx, Scenario scenario, String url, JsonObject oauth, JsonObject ctx) {
    // the mcp.json entry shape a user writes for a remote server
    JsonObject entry = new JsonObject()
      .put("url", url)
      .put("timeoutMs", TIMEOUT_MS)
      .put("connectTimeoutMs", TIMEOUT_MS);
    if (oauth != null) {
      entry.put("oauth", oauth);
    }
    McpServerOptions options = McpServerOptions.fromJson("conformance", entry, EnvExpander.system());
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
