package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentConfigTest {

  private static String error(String json, Map<String, String> env) {
    return assertThrows(ConfigException.class, () -> AgentConfig.fromJson(new JsonObject(json), env)).getMessage();
  }

  @Test
  void noKeyAnywhereMeansTheDemoModel() {
    AgentConfig c = AgentConfig.fromJson(new JsonObject(), Map.of());
    assertTrue(c.demoModel());
    assertEquals("anthropic", c.conversation().getModel().getProvider());
  }

  @Test
  void keysComeFromTheEnvironmentForTheConfiguredProvider() {
    AgentConfig c = AgentConfig.fromJson(new JsonObject("{\"model\": {\"provider\": \"openai\", \"model\": \"gpt-x\"}}"),
      Map.of("OPENAI_API_KEY", "sk-o", "OPENAI_BASE_URL", "http://localhost:11434/v1", "ANTHROPIC_API_KEY", "sk-a"));
    assertFalse(c.demoModel());
    assertEquals("sk-o", c.conversation().getModel().getApiKey());
    assertEquals("http://localhost:11434/v1", c.conversation().getModel().getBaseUrl());
    assertEquals("gpt-x", c.conversation().getModel().getModel());
  }

  @Test
  void readsEveryFieldWithExpansion() {
    AgentConfig c = AgentConfig.fromJson(new JsonObject("""
      {"model": {"apiKey": "${KEY}", "maxRetries": 0, "http2": false, "http2MaxConnections": 7},
       "system": "Be brief, ${USER_NAME}.", "maxTokens": 1000, "stream": false,
       "loop": {"maxIterations": 3, "tokenBudget": 5000, "toolTimeoutMs": 1234},
       "history": {"lastTurns": 4, "toolResultMaxChars": 200},
       "conversationInstances": 3,
       "http": {"port": "${PORT:-9090}", "tokens": {"${TOKEN}": "acme"}}}"""),
      Map.of("KEY", "sk-1", "USER_NAME", "Ada", "TOKEN", "t0k"));
    assertFalse(c.demoModel());
    assertEquals("sk-1", c.conversation().getModel().getApiKey());
    assertEquals(0, c.conversation().getModel().getMaxRetries());
    assertFalse(c.conversation().getModel().isHttp2());
    assertEquals(7, c.conversation().getModel().getHttp2MaxConnections());
    assertEquals("Be brief, Ada.", c.conversation().getSystem());
    assertEquals(1000, c.conversation().getMaxTokens());
    assertFalse(c.conversation().isStream());
    assertEquals(3, c.conversation().getMaxIterations());
    assertEquals(5000, c.conversation().getTokenBudget());
    assertEquals(1234L, c.conversation().getToolTimeoutMs());
    assertEquals(4, c.conversation().getHistory().lastTurns());
    assertEquals(3, c.conversationInstances());
    assertEquals(9090, c.http().getInteger("port"));
    assertEquals("acme", c.http().getJsonObject("tokens").getString("t0k"));
  }

  @Test
  void agentbusPortOverridesTheFile() {
    AgentConfig c = AgentConfig.fromJson(new JsonObject("{\"http\": {\"port\": 1}}"), Map.of("AGENTBUS_PORT", "0"));
    assertEquals(0, c.http().getInteger("port"));
  }

  @Test
  void errorsNameTheField() {
    assertEquals("agent config: field 'model.provider' must be \"anthropic\" or \"openai\"",
      error("{\"model\": {\"provider\": \"gemini\"}}", Map.of()));
    assertEquals("agent config: field 'loop.maxIterations' must be an integer from 1 to 2147483647 (was a string)",
      error("{\"loop\": {\"maxIterations\": \"ten\"}}", Map.of()));
    assertEquals("agent config: field 'http.port' must be a port number (0-65535; 0 picks a free port) (was 70000)",
      error("{\"http\": {\"port\": 70000}}", Map.of()));
    assertEquals("agent config: field 'http.port' must be a port number (0-65535; 0 picks a free port) (was 4294975592)",
      error("{\"http\": {\"port\": 4294975592}}", Map.of()), "2^32 + 8296 must not wrap to port 8296");
    assertEquals("agent config: field 'http.port' must be a port number (0-65535; 0 picks a free port) (was 80.5)",
      error("{\"http\": {\"port\": 80.5}}", Map.of()));
    assertEquals("agent config: field 'http.port' must be a port number (0-65535; 0 picks a free port)",
      error("{\"http\": {\"port\": \"80a\"}}", Map.of()));
    assertEquals("agent config: field 'system' must be a string (was 42)", error("{\"system\": 42}", Map.of()));
    assertEquals("agent config: field 'stream' must be true or false (was a string)", error("{\"stream\": \"yes\"}", Map.of()));
    assertEquals("agent config: field 'loop' must be an object (was an array)", error("{\"loop\": []}", Map.of()));
    assertEquals("agent config: field 'model.baseUrl' must start with http:// or https://",
      error("{\"model\": {\"baseUrl\": \"localhost:8080\"}}", Map.of()));
    assertEquals("agent config: field 'http.host' must not be empty", error("{\"http\": {\"host\": \" \"}}", Map.of()));
    assertEquals("agent config: field 'model.apiKey': environment variable 'NOPE' is not set",
      error("{\"model\": {\"apiKey\": \"${NOPE}\"}}", Map.of()));
    assertEquals("environment variable AGENTBUS_PORT must be a port number (0-65535; 0 picks a free port)",
      error("{}", Map.of("AGENTBUS_PORT", "http")));
    assertEquals("agent config: field 'http.port' must be a port number (0-65535; 0 picks a free port) (was -1)",
      error("{\"http\": {\"port\": -1}}", Map.of("AGENTBUS_PORT", "0")), "a bad file value is an error even when overridden");
  }

  @Test
  void aMissingDefaultFileGivesDefaultsButAnExplicitOneIsAnError() {
    assertTrue(AgentConfig.load(Path.of("no/such/agent.json"), false, Map.of()).demoModel());
    assertTrue(assertThrows(ConfigException.class, () -> AgentConfig.load(Path.of("no/such/agent.json"), true, Map.of()))
      .getMessage().contains("cannot read the agent config"));
  }

  @Test
  void theShippedConfigFilesParse() {
    AgentConfig shipped = AgentConfig.load(Path.of("conf/agent.json"), true, Map.of("ANTHROPIC_API_KEY", "sk-x"));
    assertFalse(shipped.demoModel());
    assertEquals(10, shipped.conversation().getMaxIterations());
    assertEquals(8080, shipped.http().getInteger("port"));
    McpConfig mcp = McpConfig.load(Path.of("conf/mcp.json"), EnvExpander.of(Map.of()));
    assertEquals("demo", mcp.servers().get(0).getName());
    assertEquals(4, McpConfig.load(Path.of("conf/mcp.example.json"), EnvExpander.of(Map.of("HOME", "/home/x"))).servers().size());
  }
}
