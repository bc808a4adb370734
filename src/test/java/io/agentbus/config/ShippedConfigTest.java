package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.http.HttpApiOptions;
import io.agentbus.limits.MemoryBudget;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.options.EnvExpander;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The shipped {@code conf/agent.json} and {@code conf/mcp.json} state only built-in defaults,
 * so that {@code serve} with or without them behaves the same and the derived limits apply;
 * {@code conf/mcp.example.json} sets tuning fields only where it means to show them. Every key
 * of the three files is one Agentbus reads, and one the README documents.
 */
class ShippedConfigTest {

  /**
   * Content rather than tuning: the product's system prompt has no built-in counterpart.
   * Each such field maps to the README words that say the shipped file sets it.
   */
  private static final Map<String, String> CONTENT_FIELDS = Map.of("system", "the shipped file sets one");
  /** Free-form maps: their keys are the user's, not field names. */
  private static final Set<String> MAP_FIELDS = Set.of("http.tokens", "env", "headers");
  /**
   * The tuning fields conf/mcp.example.json sets on purpose, to show them (server.field):
   * every other field of it must be an identity field or equal the built-in default.
   */
  private static final Set<String> EXAMPLE_CHOICES = Set.of("everything.timeoutMs", "everything.disabledTools",
    "files.allowedTools", "remote.disabled");
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
      .put("toolTimeoutMs", conv.getValue("toolTimeoutMs"))
      .put("turnTimeoutMs", conv.getValue("turnTimeoutMs"))
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
      .put("conversationMemoryBytes", conv.getValue("memoryBytes"))
      .put("maxHistoryBytes", conv.getValue("maxHistoryBytes"))
      .put("approvals", new JsonObject().put("default", conv.getValue("approval")).put("timeoutMs", conv.getValue("approvalTimeoutMs")))
      .put("store", builtIn.store().toJson())
      .put("drainTimeoutMs", builtIn.drainTimeoutMs())
      .put("http", new HttpApiOptions(builtIn.http()).toJson())
      .put("cluster", builtIn.cluster().toJson());
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
    assertOnlyDefaults(file, agentDefaults(), "", CONTENT_FIELDS.keySet());
    String readme = Files.readString(Path.of("README.md"));
    CONTENT_FIELDS.forEach((field, words) -> {
      if (file.containsKey(field)) {
        assertTrue(readme.contains(words), "README does not say that the shipped agent.json sets '" + field + "'");
      }
    });

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
    assertEquals(builtIn.cluster().toJson(), shipped.cluster().toJson());
  }

  /** @return the field paths of a file, not descending into {@link #MAP_FIELDS} */
  private static List<String> paths(JsonObject json, String prefix) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Object> e : json) {
      String path = prefix + e.getKey();
      out.add(path);
      if (e.getValue() instanceof JsonObject obj && !MAP_FIELDS.contains(path) && !MAP_FIELDS.contains(e.getKey())) {
        out.addAll(paths(obj, path + "."));
      }
    }
    return out;
  }

  private static void assertDocumented(String file, List<String> fields) throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    for (String field : fields) {
      assertTrue(readme.contains("`" + field + "`"), file + " sets '" + field + "', which the README does not document");
    }
  }

  @Test
  void everyKeyOfTheShippedFilesIsKnownAndDocumented() throws IOException {
    AgentConfig agent = AgentConfig.load(Path.of("conf/agent.json"), true, ENV);
    assertEquals(List.of(), agent.unknownFields(), "conf/agent.json");
    JsonObject agentFile = read("conf/agent.json");
    List<String> agentPaths = paths(agentFile, "");
    // an object is documented by its fields
    agentPaths.removeIf(p -> agentFile.getValue(p) instanceof JsonObject && !MAP_FIELDS.contains(p));
    assertDocumented("conf/agent.json", agentPaths);
    for (String name : List.of("conf/mcp.json", "conf/mcp.example.json")) {
      McpConfig mcp = McpConfig.load(Path.of(name), EnvExpander.of(Map.of("HOME", "/home/x", "PWD", "/work")));
      assertEquals(List.of(), mcp.unknownFields(), name);
      Set<String> fields = new TreeSet<>();
      read(name).getJsonObject("mcpServers").forEach(e -> fields.addAll(paths((JsonObject) e.getValue(), "")));
      fields.remove("restart");
      assertDocumented(name, new ArrayList<>(fields));
    }
  }

  @Test
  void theExampleMcpJsonSetsTuningFieldsOnlyWhereItMeansTo() throws IOException {
    JsonObject servers = read("conf/mcp.example.json").getJsonObject("mcpServers");
    McpConfig config = McpConfig.load(Path.of("conf/mcp.example.json"), EnvExpander.of(Map.of("HOME", "/home/x", "PWD", "/work")));
    assertEquals(servers.size(), config.servers().size());
    Set<String> chosen = new TreeSet<>();
    for (McpServerOptions parsed : config.servers()) {
      JsonObject entry = servers.getJsonObject(parsed.getName());
      JsonObject defaults = new McpServerOptions().setName(parsed.getName()).setTransport(parsed.getTransport())
        .setCommand(parsed.getCommand()).setArgs(parsed.getArgs()).setEnv(parsed.getEnv()).setCwd(parsed.getCwd())
        .setUrl(parsed.getUrl()).setHeaders(parsed.getHeaders()).toJson();
      JsonObject actual = parsed.toJson();
      for (String field : actual.fieldNames()) {
        if (!actual.getValue(field).equals(defaults.getValue(field))) {
          String where = parsed.getName() + "." + field;
          assertTrue(EXAMPLE_CHOICES.contains(where), where + " differs from the built-in default: a deliberate example?"
            + " Then add it to EXAMPLE_CHOICES");
          assertTrue(entry.containsKey(field), where);
          chosen.add(where);
        }
      }
    }
    assertEquals(EXAMPLE_CHOICES, chosen, "EXAMPLE_CHOICES names a field the example no longer sets");
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
