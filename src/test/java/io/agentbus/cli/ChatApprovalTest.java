package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.demo.DemoMcpServer;
import io.agentbus.http.HttpApiOptions;
import io.agentbus.http.HttpApiVerticle;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The terminal chat asks the person at the terminal when a tool call needs approval (the demo
 * server with {@code approval: "always"}, the demo model): {@code y} runs it, anything else
 * refuses it; in-process and against a running server over HTTP.
 */
@Integration
class ChatApprovalTest {

  private static CliArgs configFiles(Path dir) throws Exception {
    JsonObject demo = InteropServers.javaMain("demo", DemoMcpServer.class).toJson();
    Path mcp = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("demo", new JsonObject().put("command", demo.getString("command")).put("args", demo.getJsonArray("args"))
        .put("approval", "always"))).encode());
    Path agent = Files.writeString(dir.resolve("agent.json"), "{\"model\": {\"demo\": true}}");
    return new CliArgs(List.of("--config", agent.toString(), "--mcp-config", mcp.toString()), Set.of(),
      Set.of("config", "mcp-config"));
  }

  private static String chat(Vertx vertx, CliArgs args, String typed) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = ChatCommand.run(vertx, args, new ByteArrayInputStream(typed.getBytes(StandardCharsets.UTF_8)),
      new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theInProcessChatAsksAndRunsOnlyWhatIsApproved(@TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      String text = chat(vertx, configFiles(dir), "What is the weather in Tokyo?\ny\nWhat is the weather in Cairo?\nno\n\n");
      assertTrue(text.contains("[tool mcp__demo__get_weather wants to run with {\"city\":\"Tokyo\"}: approve? y/N]   [approved]"), text);
      assertTrue(text.contains("Tokyo: sunny, 14 °C"), text);
      assertTrue(text.contains("[tool mcp__demo__get_weather wants to run with {\"city\":\"Cairo\"}: approve? y/N]   [denied]"), text);
      assertTrue(text.contains("[tool mcp__demo__get_weather failed in"), text);
      assertFalse(text.contains("Cairo: sunny"), text);
      java.util.regex.Matcher log = java.util.regex.Pattern.compile("Log: (\\S+)\\.").matcher(text);
      if (log.find()) {
        Files.deleteIfExists(Path.of(log.group(1)));
      }
    } finally {
      Cli.await(vertx.close());
    }
  }

  @Test
  void theRemoteChatAnswersOverHttp(@TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      CliArgs config = configFiles(dir);
      Launcher.Launched launched = Cli.await(Launcher.start(vertx, Cli.loadAgentConfig(config), Cli.loadMcpConfig(config)));
      HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setTokens(Map.of("s3cret", "me"))
        .setServers(launched.agentbus().servers())).setDemoModel(launched.demoModel() != null);
      Cli.await(vertx.deployVerticle(api));
      String text = chat(vertx, new CliArgs(List.of("--url", "http://127.0.0.1:" + api.actualPort(), "--token", "s3cret"),
        Set.of(), Set.of("url", "token")), "weather in Cairo\ny\nweather in Tokyo\n\n\n");
      assertTrue(text.contains("[tool mcp__demo__get_weather wants to run with {\"city\":\"Cairo\"}: approve? y/N]   [approved]"), text);
      assertTrue(text.contains("Cairo: sunny, 23 °C"), text);
      // an empty answer refuses
      assertTrue(text.contains("[tool mcp__demo__get_weather wants to run with {\"city\":\"Tokyo\"}: approve? y/N]   [denied]"), text);
      assertFalse(text.contains("Tokyo: sunny"), text);
      Cli.await(launched.close());
    } finally {
      Cli.await(vertx.close());
    }
  }
}
