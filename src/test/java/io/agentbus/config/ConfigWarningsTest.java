package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.options.EnvExpander;
import io.agentbus.testing.LogCapture;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Keys nothing reads are ignored, with a warning naming each and the nearest known name. */
class ConfigWarningsTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  @Test
  void unknownAgentJsonKeysAreNamedWithATypoHint(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("agent.json"), """
      {"sytem": "x", "maxTokens": 10, "bogus": 1,
       "model": {"maxConection": 5, "connectTimeoutMs": 100},
       "loop": {"maxIteration": 3},
       "http": {"Port": 1, "tokens": {"any-token": "acme"}}}""");
    AgentConfig config = AgentConfig.load(file, true, Map.of());
    List<String> expected = List.of(
      "unknown field 'sytem' is ignored (did you mean 'system'?)",
      "unknown field 'bogus' is ignored",
      "unknown field 'model.maxConection' is ignored (did you mean 'model.maxConnections'?)",
      "unknown field 'loop.maxIteration' is ignored (did you mean 'loop.maxIterations'?)",
      "unknown field 'http.Port' is ignored (did you mean 'http.port'?)");
    assertEquals(expected, config.unknownFields());
    for (String u : expected) {
      assertTrue(logs.lines().contains("WARN " + AgentConfig.class.getName() + " " + file + ": " + u), logs.lines()::toString);
    }
    // the known ones were read, and free-form maps (tokens) are not checked for names
    assertEquals(10, config.conversation().getMaxTokens());
    assertEquals(100, config.conversation().getModel().getConnectTimeoutMs());
    assertEquals(5, logs.count("unknown field"));
  }

  @Test
  void unknownMcpJsonKeysAreNamedWithATypoHint() {
    McpConfig config = McpConfig.fromJson(new JsonObject("""
      {"inputs": [], "mcpServers": {
        "a": {"command": "x", "timeout": 5, "env": {"ANY_NAME": "v"}, "restart": {"maxBackof": 10}},
        "b": {"url": "https://example.com/mcp", "header": {}}}}"""), EnvExpander.of(Map.of()));
    List<String> expected = List.of(
      "unknown field 'inputs' is ignored",
      "server 'a': unknown field 'timeout' is ignored (did you mean 'timeoutMs'?)",
      "server 'a': unknown field 'restart.maxBackof' is ignored (did you mean 'restart.maxBackoffMs'?)",
      "server 'b': unknown field 'header' is ignored (did you mean 'headers'?)");
    assertEquals(expected, config.unknownFields());
    for (String u : expected) {
      assertTrue(logs.contains("WARN " + McpConfig.class.getName() + " MCP config: " + u), logs.lines()::toString);
    }
  }

  @Test
  void aFileOfKnownKeysWarnsOfNothing() {
    AgentConfig.fromJson(new JsonObject("{\"model\": {\"demo\": true, \"demoLatencyMs\": 1}, \"http\": {\"port\": 0}}"), Map.of());
    McpConfig.fromJson(new JsonObject("{\"servers\": {\"a\": {\"type\": \"stdio\", \"command\": \"x\"}}}"), EnvExpander.of(Map.of()));
    assertTrue(logs.lines().stream().noneMatch(l -> l.startsWith("WARN") && l.contains("unknown field")), logs.lines()::toString);
  }
}
