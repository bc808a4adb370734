package io.agentbus.cli;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.demo.DemoMcpServer;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The terminal chat against an in-process Agentbus running the demo model and demo server. */
@Integration
class ChatCommandTest {

  @Test
  void demoChatAnswersAWeatherQuestionWithARealToolCall(@TempDir Path dir) throws Exception {
    JsonObject demo = InteropServers.javaMain("demo", DemoMcpServer.class).toJson();
    Path mcp = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("demo", new JsonObject().put("command", demo.getString("command")).put("args", demo.getJsonArray("args")))).encode());
    Path agent = Files.writeString(dir.resolve("agent.json"), "{\"model\": {\"demo\": true}}");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Vertx vertx = Vertx.vertx();
    try {
      int code = ChatCommand.run(vertx, new CliArgs(List.of("--config", agent.toString(), "--mcp-config", mcp.toString()),
          java.util.Set.of(), java.util.Set.of("config", "mcp-config")),
        new ByteArrayInputStream("What is the weather in Tokyo?\n\n".getBytes(StandardCharsets.UTF_8)),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      String text = out.toString(StandardCharsets.UTF_8);
      assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
      assertTrue(text.startsWith("Agentbus chat. DEMO MODE: the built-in mock model answers (model.demo is true)")
        || text.startsWith("Agentbus chat. DEMO MODE: the built-in mock model answers (no ANTHROPIC_API_KEY"), text);
      assertTrue(text.contains("\nMCP servers: demo (READY, 3 tools)."), text);
      assertTrue(text.contains("[tool mcp__demo__get_weather ...]"), text);
      assertTrue(text.contains("[tool mcp__demo__get_weather done in"), text);
      assertTrue(text.contains("Tokyo: sunny, 14 °C"), text);
      java.util.regex.Matcher log = java.util.regex.Pattern.compile("Log: (\\S+)\\.").matcher(text);
      assertTrue(log.find(), text);
      Files.deleteIfExists(Path.of(log.group(1)));
    } finally {
      Cli.await(vertx.close());
    }
  }

  @Test
  void remoteChatTalksToARunningServerOverHttpWithSse(@TempDir Path dir) throws Exception {
    JsonObject demo = InteropServers.javaMain("demo", DemoMcpServer.class).toJson();
    Path mcp = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("demo", new JsonObject().put("command", demo.getString("command")).put("args", demo.getJsonArray("args")))).encode());
    Path agent = Files.writeString(dir.resolve("agent.json"), "{\"model\": {\"demo\": true}}");
    Vertx vertx = Vertx.vertx();
    try {
      CliArgs config = new CliArgs(List.of("--config", agent.toString(), "--mcp-config", mcp.toString()),
        java.util.Set.of(), java.util.Set.of("config", "mcp-config"));
      Launcher.Launched launched = Cli.await(Launcher.start(vertx, Cli.loadAgentConfig(config), Cli.loadMcpConfig(config)));
      io.agentbus.http.HttpApiVerticle api = new io.agentbus.http.HttpApiVerticle(new io.agentbus.http.HttpApiOptions()
        .setPort(0).setTokens(java.util.Map.of("s3cret", "me")).setServers(launched.agentbus().servers()))
        .setDemoModel(launched.demoModel() != null);
      Cli.await(vertx.deployVerticle(api));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = ChatCommand.run(vertx, new CliArgs(List.of("--url", "http://127.0.0.1:" + api.actualPort(), "--token", "s3cret"),
          java.util.Set.of(), java.util.Set.of("url", "token")),
        new ByteArrayInputStream("weather in Cairo\n\n".getBytes(StandardCharsets.UTF_8)),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      String text = out.toString(StandardCharsets.UTF_8);
      assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
      assertTrue(text.startsWith("Agentbus chat at http://127.0.0.1:" + api.actualPort() + " (DEMO MODE"), text);
      assertTrue(text.contains("[tool mcp__demo__get_weather done in"), text);
      assertTrue(text.contains("Cairo: sunny, 23 °C"), text);
      Cli.await(launched.close());
    } finally {
      Cli.await(vertx.close());
    }
  }
}
