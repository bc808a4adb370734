package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.http.HttpApiOptions;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The shipped {@code conf/agent.json} and {@code conf/mcp.json} state only built-in defaults,
 * so that {@code serve} with or without them behaves the same and the derived limits apply.
 */
class ShippedConfigTest {

  /** Content rather than tuning: the product's system prompt has no built-in counterpart. */
  private static final Set<String> CONTENT_FIELDS = Set.of("system");
  /** What identifies an MCP server (it has no default); everything else must be the default. */
  private static final Set<String> MCP_IDENTITY_FIELDS = Set.of("command", "args", "env", "cwd", "url", "headers", "type");

  private static final Map<String, String> ENV = Map.of();

  /** The built-in defaults in the shape of {@code conf/agent.json}. */
  private static JsonObject agentDefaults() {
    AgentConfig builtIn = AgentConfig.fromJson(new JsonObject(), ENV);
    JsonObject conv = builtIn.conversation().toJson();
    JsonObject loop = new JsonObject()
      .put("maxIterations", conv.getValue("maxIterations"))
      .put("tokenBudget", conv.getValue("tokenBudget"))
      .put("maxActiveTurns", conv.getValue("maxActiveTurns"));
    JsonObject model = conv.getJsonObject("model").copy();
    model.remove("apiKey");
    return new JsonObject()
      .put("model", model.put("demoLatencyMs", builtIn.demoLatencyMs()))
      .put("maxTokens", conv.getValue("maxTokens"))
      .put("stream", conv.getValue("stream"))
      .put("loop", loop)
      .put("history", conv.getJsonObject("history"))
      .put("conversationInstances", AgentbusOptions.DEFAULT_CONVERSATION_INSTANCES)
      .put("conversationIdleTimeoutMs", conv.getValue("idleTimeoutMs"))
      .put("maxConversations", conv.getValue("maxConversations"))
      .put("drainTimeoutMs", builtIn.drainTimeoutMs())
      .put("http", new HttpApiOptions(builtIn.http()).toJson());
  }

  /** Asserts that every leaf of {@code file} has the same value in {@code defaults}. */
  private static void assertOnlyDefaults(JsonObject file, JsonObject defaults, String prefix, Set<String> skip) {
    for (Map.Entry<String, Object> e : file) {
      String path = prefix + e.getKey();
      if (skip.contains(path)) {
        continue;
      }
      assertTrue(defaults.containsKey(e.getKey()), path + " is set in the shipped file but has no built-in default here");
      Object expected = defaults.getValue(e.getKey());
      Object actual = e.getValue();
      if (actual instanceof JsonObject obj && !obj.isEmpty() && expected instanceof JsonObject def) {
        assertOnlyDefaults(obj, def, path + ".", skip);
      } else if (actual instanceof Number a && expected instanceof Number x) {
        assertEquals(x.doubleValue(), a.doubleValue(), path + " differs from the built-in default");
      } else {
        assertEquals(expected, actual, path + " differs from the built-in default");
      }
    }
  }

  private static JsonObject read(String file) throws IOException {
    return new JsonObject(Files.readString(Path.of(file)));
  }

  @Test
  void theShippedAgentJsonStatesOnlyBuiltInDefaults() throws IOException {
    JsonObject file = read("conf/agent.json");
    assertOnlyDefaults(file, agentDefaults(), "", CONTENT_FIELDS);

    // and the whole resolved configuration is the built-in one
    AgentConfig builtIn = AgentConfig.fromJson(new JsonObject(), ENV);
    AgentConfig shipped = AgentConfig.load(Path.of("conf/agent.json"), true, ENV);
    ConversationOptions expected = new ConversationOptions(builtIn.conversation()).setSystem(file.getString("system"));
    assertEquals(expected.toJson(), shipped.conversation().toJson());
    assertEquals(new HttpApiOptions(builtIn.http()).toJson(), new HttpApiOptions(shipped.http()).toJson());
    assertEquals(builtIn.conversationInstances(), shipped.conversationInstances());
    assertEquals(builtIn.drainTimeoutMs(), shipped.drainTimeoutMs());
    assertEquals(builtIn.demoModel(), shipped.demoModel());
    assertEquals(builtIn.demoLatencyMs(), shipped.demoLatencyMs());
  }

  @Test
  void theShippedAgentJsonLeavesTheDerivedLimitsToTheHeap() throws IOException {
    JsonObject file = read("conf/agent.json");
    assertFalse(file.getJsonObject("http", new JsonObject()).containsKey("maxInFlightTurns"));
    assertFalse(file.getJsonObject("loop", new JsonObject()).containsKey("maxActiveTurns"));
    assertFalse(file.containsKey("maxConversations"));
    assertFalse(file.getJsonObject("model", new JsonObject()).containsKey("maxConnections"));
    AgentConfig shipped = AgentConfig.load(Path.of("conf/agent.json"), true, ENV);
    assertEquals(MemoryBudget.turns(), new HttpApiOptions(shipped.http()).getMaxInFlightTurns());
    assertEquals(MemoryBudget.turns(), shipped.conversation().getMaxActiveTurns());
    assertEquals(-1, shipped.conversation().getModel().getMaxWaitQueueSize());
  }

  @Test
  void theShippedMcpJsonSetsNoTuningField() throws IOException {
    JsonObject servers = read("conf/mcp.json").getJsonObject("mcpServers");
    assertNotNull(servers);
    McpConfig config = McpConfig.load(Path.of("conf/mcp.json"), EnvExpander.of(ENV));
    assertEquals(servers.size(), config.servers().size());
    for (McpServerOptions parsed : config.servers()) {
      JsonObject entry = servers.getJsonObject(parsed.getName());
      for (String field : entry.fieldNames()) {
        assertTrue(MCP_IDENTITY_FIELDS.contains(field), "server '" + parsed.getName() + "' sets '" + field
          + "': leave tuning fields to the built-in defaults in the shipped file");
      }
      McpServerOptions defaults = new McpServerOptions().setName(parsed.getName()).setTransport(parsed.getTransport())
        .setCommand(parsed.getCommand()).setArgs(parsed.getArgs()).setEnv(parsed.getEnv()).setCwd(parsed.getCwd())
        .setUrl(parsed.getUrl()).setHeaders(parsed.getHeaders());
      assertEquals(defaults.toJson(), parsed.toJson());
      assertEquals(McpServerOptions.DEFAULT_MAX_QUEUED_CALLS, parsed.getMaxQueuedCalls());
      assertTrue(parsed.getMaxPendingRequests() >= parsed.getMaxConcurrentCalls());
    }
  }
}
