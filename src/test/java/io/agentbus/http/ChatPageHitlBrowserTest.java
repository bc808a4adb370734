package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.demo.DemoMcpServer;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.ToolApproval;
import io.agentbus.mcp.auth.OAuthOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.testing.Chromium;
import io.agentbus.testing.ElicitingServer;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.OAuthWhoAmIServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chat page's human-in-the-loop parts in a real browser: Debian's Chromium driven by
 * playwright-core ({@code src/test/browser/chat-page-hitl.mjs}, no browser download) against
 * Agentbus with the demo model, the demo MCP server (its {@code calculate} tool needs approval)
 * and a server that elicits. A weather turn runs without a question; a calculator turn is
 * approved from its box and runs; another is denied with a reason, which its failed tool line
 * shows (and the server never sees the call); the page reloaded while a call waits still offers
 * the question once the conversation is reopened; an elicitation form rendered from the server's
 * schema is filled in and its answer reaches the tool; a call of a tenant-scoped OAuth server
 * shows an "Authorize" link, the person signs in from it in a tab of its own, and the next call
 * runs as that person. A failing step leaves a screenshot and
 * the page's HTML under {@code target/browser-test/hitl}.
 */
@Integration
class ChatPageHitlBrowserTest {

  private static final String TOKEN = "hitl-browser-token-9a4c";

  private Vertx vertx;
  private MockModelServer mock;
  private Agentbus agentbus;
  private HttpApiVerticle api;
  private OAuthWhoAmIServer crm;

  @BeforeEach
  void start() throws Exception {
    Chromium.requireInstalled();
    vertx = Vertx.vertx();
    mock = MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_DEMO)).await(20, TimeUnit.SECONDS);
    ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
      .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock");
    crm = OAuthWhoAmIServer.start(vertx).await(20, TimeUnit.SECONDS);
    agentbus = Agentbus.deploy(vertx, new AgentbusOptions()
        .addMcpServer(new McpServerOptions().setName("crm").setTransport(McpServerOptions.Transport.HTTP).setUrl(crm.mcpUrl())
          .setScope(McpServerOptions.Scope.TENANT).setOauth(new OAuthOptions()))
        .addMcpServer(InteropServers.javaMain("demo", DemoMcpServer.class).setToolApprovals(Map.of("calculate", ToolApproval.ALWAYS)))
        .addMcpServer(InteropServers.javaMain("eliciting", ElicitingServer.class).setAllowedTools(List.of("ask")))
        .setConversation(new ConversationOptions().setModel(model)))
      .await(60, TimeUnit.SECONDS);
    agentbus.serversReady().timeout(60, TimeUnit.SECONDS).await(70, TimeUnit.SECONDS);
    api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(TOKEN, "tester")
      .setServers(List.of("demo", "eliciting", "crm"))).setDemoModel(true);
    vertx.deployVerticle(api).await(20, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    if (vertx != null) {
      (agentbus == null ? Future.<Void>succeededFuture() : agentbus.close())
        .eventually(() -> crm == null ? Future.succeededFuture() : crm.close())
        .eventually(() -> mock == null ? Future.succeededFuture() : mock.close())
        .eventually(() -> vertx.close()).await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void approvalsAndAnElicitationFormWorkInTheBrowser() throws Exception {
    Path out = Path.of("target", "browser-test", "hitl").toAbsolutePath();
    JsonObject config = new JsonObject()
      .put("url", "http://127.0.0.1:" + api.actualPort() + "/")
      .put("token", TOKEN)
      .put("out", out.toString())
      .put("chromium", Chromium.BROWSER.toString())
      .put("weather", new JsonObject().put("message", "What is the weather in Paris?").put("tool", "mcp__demo__get_weather")
        .put("expect", "Paris: light rain"))
      .put("approve", new JsonObject().put("message", "Calculate 6 * 7").put("tool", "mcp__demo__calculate").put("expect", "= 42"))
      .put("deny", new JsonObject().put("message", "Calculate 2 + 2").put("tool", "mcp__demo__calculate")
        .put("reason", "not today"))
      .put("reload", new JsonObject().put("message", "Calculate 3 * 5").put("tool", "mcp__demo__calculate").put("expect", "= 15"))
      .put("elicit", new JsonObject().put("message", "Please ask me something")
        .put("fill", new JsonObject().put("name", "Ada").put("color", "green")).put("expect", "Ada"))
      .put("authorize", new JsonObject().put("message", "whoami").put("tool", "mcp__crm__whoami").put("login", "alice")
        .put("expect", "user=alice"));
    Path script = Path.of("src", "test", "browser", "chat-page-hitl.mjs").toAbsolutePath();
    Path log = Files.createDirectories(out).resolve("run.log");
    Process p = new ProcessBuilder("node", script.toString(), InteropServers.dir().toString(), config.encode())
      .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(240, TimeUnit.SECONDS)) {
        throw new AssertionError("the browser script did not finish:\n" + Files.readString(log, StandardCharsets.UTF_8));
      }
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("ok approve") && output.contains("ok deny") && output.contains("ok reload")
      && output.contains("ok elicit")
      && output.contains("ok authorize")
      && output.contains("all steps passed"), output);
    // the denied call never reached the server: only the approved one ran
    assertEquals(2, calculateCalls(), "calculate ran twice (approved, and approved after the reload), not for the denied call");
  }

  /** How many calls of the demo server's calculate tool ran, from the API's Prometheus metrics. */
  private int calculateCalls() throws Exception {
    String text = io.vertx.ext.web.client.WebClient.create(vertx).get(api.actualPort(), "127.0.0.1", "/metrics").send()
      .await(20, TimeUnit.SECONDS).bodyAsString();
    int total = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith("agentbus_tool_calls_seconds_count") && line.contains("server=\"demo\"") && line.contains("tool=\"calculate\"")) {
        total += (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }
}
