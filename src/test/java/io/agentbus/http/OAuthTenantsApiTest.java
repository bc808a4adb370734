package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Scope;
import io.agentbus.mcp.auth.OAuthOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.testing.Integration;
import io.agentbus.testing.LogCapture;
import io.agentbus.testing.OAuthWhoAmIServer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-user OAuth end to end over the HTTP API: a {@code tenant}-scoped HTTP MCP server behind
 * an authorization server of the test's own ({@link OAuthWhoAmIServer}), two tenants, the mock
 * model over real HTTP. A tenant's first call needs authorization: its SSE stream carries
 * {@code authorization_required} with the URL and the tool_result says authorization is needed
 * (without the URL); the person signs in at that URL, the authorization server sends the
 * browser to Agentbus' {@code /oauth/callback}, and the next turn's call runs as that person.
 * The other tenant is not authorized by it, authorizes through
 * {@code GET /v1/mcp/{server}/authorize}, and runs as itself; no token is ever sent on the
 * other tenant's session, and none appears in a log. Bad callbacks get a clear page.
 */
@Integration
class OAuthTenantsApiTest {

  private static final String ACME = "acme-token-41f0";
  private static final String GLOBEX = "globex-token-77d2";

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private Vertx vertx;
  private MockModelServer mock;
  private OAuthWhoAmIServer crm;
  private Agentbus agentbus;
  private HttpApiVerticle api;
  private WebClient web;
  private WebClient person;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    JsonObject use = new JsonObject().put("type", "tool_use").put("name", "mcp__crm__whoami").put("input", new JsonObject());
    JsonObject script = new JsonObject().put("conversations", new JsonArray().add(new JsonObject().put("match", "WHO")
      .put("replies", new JsonArray().add(new JsonObject().put("content", new JsonArray().add(use)))
        .add(new JsonObject().put("text", "done")))));
    mock = MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(script))
      .await(20, TimeUnit.SECONDS);
    crm = OAuthWhoAmIServer.start(vertx).await(20, TimeUnit.SECONDS);
    ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
      .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock-model");
    agentbus = Agentbus.deploy(vertx, new AgentbusOptions()
        .addMcpServer(new McpServerOptions().setName("crm").setTransport(McpServerOptions.Transport.HTTP).setUrl(crm.mcpUrl()).setScope(Scope.TENANT)
          .setOauth(new OAuthOptions()))
        .addMcpServer(new McpServerOptions().setName("crmshared").setTransport(McpServerOptions.Transport.HTTP)
          .setUrl(crm.mcpUrl()).setOauth(new OAuthOptions()))
        .setConversation(new ConversationOptions().setModel(model).setMaxIterations(3)))
      .await(60, TimeUnit.SECONDS);
    agentbus.serversReady().await(60, TimeUnit.SECONDS);
    api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(ACME, "acme")
      .addToken(GLOBEX, "globex").setServers(List.of("crm", "crmshared")));
    vertx.deployVerticle(api).await(20, TimeUnit.SECONDS);
    web = WebClient.create(vertx);
    person = WebClient.create(vertx, new WebClientOptions().setFollowRedirects(false));
  }

  @AfterEach
  void stop() throws Exception {
    if (vertx != null) {
      (agentbus == null ? io.vertx.core.Future.<Void>succeededFuture() : agentbus.close())
        .eventually(() -> crm == null ? io.vertx.core.Future.succeededFuture() : crm.close())
        .eventually(() -> mock == null ? io.vertx.core.Future.succeededFuture() : mock.close())
        .eventually(() -> vertx.close()).await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void eachTenantAuthorizesForItselfAndItsCallsCarryOnlyItsOwnToken() throws Exception {
    // acme's first call: the stream carries the link, the model reads that authorization is needed
    Turn first = streamedTurn(ACME);
    JsonObject required = first.only("authorization_required");
    assertEquals("crm", required.getString("server"));
    assertEquals("acme", required.getString("tenant"));
    assertEquals("mcp__crm__whoami", required.getString("name"));
    String url = required.getString("url");
    assertTrue(url.contains("code_challenge=") && url.contains("resource="), url);
    String result = first.toolResult();
    assertTrue(result.contains("needs OAuth authorization for tenant 'acme'") && result.contains("was not run"), result);
    assertFalse(result.contains(url) || result.contains("state="), "the URL stays out of the history: " + result);

    // the person signs in as alice; the authorization server sends the browser back to Agentbus
    assertEquals(200, signIn(url, "alice").statusCode());
    assertEquals("user=alice", streamedTurn(ACME).toolResult());

    // globex is not authorized by acme's sign-in: its own call needs its own authorization
    Turn globexFirst = streamedTurn(GLOBEX);
    assertEquals("globex", globexFirst.only("authorization_required").getString("tenant"));
    assertTrue(globexFirst.toolResult().contains("for tenant 'globex'"), globexFirst.toolResult());
    JsonObject link = api(HttpMethod.GET, "/v1/mcp/crm/authorize", GLOBEX).send().await(20, TimeUnit.SECONDS).bodyAsJsonObject();
    assertEquals("globex", link.getString("tenant"));
    HttpResponse<Buffer> page = signIn(link.getString("url"), "bob");
    assertEquals(200, page.statusCode());
    assertTrue(page.bodyAsString().replace("&#39;", "'").contains("Agentbus may now use server 'crm' for 'globex'"), page.bodyAsString());
    assertEquals("user=bob", streamedTurn(GLOBEX).toolResult());
    assertEquals("user=alice", streamedTurn(ACME).toolResult(), "acme still runs as alice");

    // every session carried one person's token only, and each person's token one session only
    Map<String, Set<String>> usersBySession = crm.calls.stream()
      .collect(Collectors.groupingBy(OAuthWhoAmIServer.Call::session, Collectors.mapping(OAuthWhoAmIServer.Call::user, Collectors.toSet())));
    assertEquals(2, usersBySession.size(), crm.calls.toString());
    usersBySession.values().forEach(users -> assertEquals(1, users.size(), usersBySession.toString()));
    Map<String, Set<String>> sessionsByToken = crm.calls.stream()
      .collect(Collectors.groupingBy(OAuthWhoAmIServer.Call::token, Collectors.mapping(OAuthWhoAmIServer.Call::session, Collectors.toSet())));
    sessionsByToken.values().forEach(sessions -> assertEquals(1, sessions.size(), sessionsByToken.toString()));
    for (String token : crm.issued().keySet()) {
      assertTrue(logs.lines().stream().noneMatch(l -> l.contains(token)), "a token reached the log");
    }
  }

  @Test
  void aSharedServerIsNotAuthorizedByATenantAndBadCallbacksGetAClearPage() throws Exception {
    // a wrong state: nobody's authorization, nothing stored
    HttpResponse<Buffer> wrong = person.get(api.actualPort(), "127.0.0.1", "/oauth/callback?code=x&state=crm.not-a-pending-state")
      .send().await(20, TimeUnit.SECONDS);
    assertEquals(400, wrong.statusCode());
    assertTrue(wrong.bodyAsString().contains("belongs to no pending authorization"), wrong.bodyAsString());
    HttpResponse<Buffer> missing = person.get(api.actualPort(), "127.0.0.1", "/oauth/callback?code=x").send()
      .await(20, TimeUnit.SECONDS);
    assertEquals(400, missing.statusCode());
    assertTrue(missing.bodyAsString().contains("its state is missing"), missing.bodyAsString());
    HttpResponse<Buffer> escaped = person.get(api.actualPort(), "127.0.0.1", "/oauth/callback?state=%3Cscript%3E.x").send()
      .await(20, TimeUnit.SECONDS);
    assertFalse(escaped.bodyAsString().contains("<script>"), escaped.bodyAsString());
    // a shared server is its operator's to authorize: a tenant's account must not become everyone's
    HttpResponse<Buffer> shared = api(HttpMethod.GET, "/v1/mcp/crmshared/authorize", ACME).send().await(20, TimeUnit.SECONDS);
    assertEquals(403, shared.statusCode(), shared.bodyAsString());
    assertTrue(shared.bodyAsString().contains("only its operator authorizes it"), shared.bodyAsString());
    // an unknown server
    assertEquals(503, api(HttpMethod.GET, "/v1/mcp/nope/authorize", ACME).send().await(20, TimeUnit.SECONDS).statusCode());
    // a tenant call that was refused stays refused after a bad callback: nothing was stored
    assertTrue(streamedTurn(ACME).toolResult().contains("needs OAuth authorization"));
    assertTrue(crm.issued().isEmpty(), "no token was issued");
  }

  private HttpRequest<Buffer> api(HttpMethod method, String path, String token) {
    return web.request(method, api.actualPort(), "127.0.0.1", path).bearerTokenAuthentication(token);
  }

  /** The person at the authorization URL, signed in as {@code login}: follows the redirect to Agentbus' callback. */
  private HttpResponse<Buffer> signIn(String url, String login) throws Exception {
    HttpResponse<Buffer> redirect = person.getAbs(url + "&login=" + login).send().await(20, TimeUnit.SECONDS);
    assertEquals(302, redirect.statusCode(), redirect.bodyAsString());
    String callback = redirect.getHeader("Location");
    assertNotNull(callback);
    assertTrue(callback.matches("http://(localhost|127\\.0\\.0\\.1):" + api.actualPort() + "/oauth/callback\\?.*"), callback);
    return person.getAbs(callback).send().await(20, TimeUnit.SECONDS);
  }

  /** One turn in a new conversation, streamed; its events. */
  private Turn streamedTurn(String token) throws Exception {
    String id = api(HttpMethod.POST, "/v1/conversations", token).sendJsonObject(new JsonObject()).await(20, TimeUnit.SECONDS)
      .bodyAsJsonObject().getString("id");
    HttpResponse<Buffer> resp = api(HttpMethod.POST, "/v1/conversations/" + id + "/messages", token)
      .putHeader("Accept", "text/event-stream").sendJsonObject(new JsonObject().put("content", "WHO am I?"))
      .await(60, TimeUnit.SECONDS);
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    List<JsonObject> events = new ArrayList<>();
    for (String block : resp.bodyAsString().split("\n\n")) {
      String type = null;
      String data = null;
      for (String line : block.split("\n")) {
        if (line.startsWith("event: ")) {
          type = line.substring(7);
        } else if (line.startsWith("data: ")) {
          data = line.substring(6);
        }
      }
      if (type != null && data != null) {
        events.add(new JsonObject(data).put("type", type));
      }
    }
    JsonArray messages = api(HttpMethod.GET, "/v1/conversations/" + id, token).send().await(20, TimeUnit.SECONDS)
      .bodyAsJsonObject().getJsonArray("messages");
    return new Turn(events, messages);
  }

  private record Turn(List<JsonObject> events, JsonArray messages) {

    JsonObject only(String type) {
      List<JsonObject> found = events.stream().filter(e -> type.equals(e.getString("type"))).toList();
      assertEquals(1, found.size(), "one " + type + " in " + events);
      return found.get(0);
    }

    /** The text of the turn's one tool_result. */
    String toolResult() {
      for (Object m : messages) {
        if (((JsonObject) m).getValue("content") instanceof JsonArray blocks) {
          for (Object b : blocks) {
            JsonObject block = (JsonObject) b;
            if ("tool_result".equals(block.getString("type"))) {
              Object c = block.getValue("content");
              return c instanceof String s ? s : ((JsonArray) c).getJsonObject(0).getString("text");
            }
          }
        }
      }
      throw new AssertionError("no tool_result in " + messages.encode());
    }
  }
}
