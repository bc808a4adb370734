package io.agentbus.cli;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.cli.AgentMain;
import io.agentbus.testing.FakeStdioServer;
import io.agentbus.testing.InteropServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code tools} and {@code call} commands, run in-process against real servers. */
@Integration
class AgentMainTest {

  @TempDir
  static Path dir;
  static Path config;

  record Run(int code, String out, String err) {
  }

  @BeforeAll
  static void writeConfig() throws Exception {
    JsonObject servers = new JsonObject()
      .put("everything", entry(InteropServers.everythingStdio("everything").toJson()))
      .put("fake", entry(InteropServers.javaMain("fake", FakeStdioServer.class, "plain").toJson()))
      .put("narrow", entry(InteropServers.javaMain("narrow", FakeStdioServer.class, "plain").toJson())
        .put("disabledTools", new JsonArray().add("hang").add("d*")));
    config = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", servers).encodePrettily());
  }

  private static JsonObject entry(JsonObject full) {
    return new JsonObject().put("command", full.getString("command")).put("args", full.getJsonArray("args"));
  }

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = AgentMain.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
      new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static String[] withConfig(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--mcp-config");
    all.add(config.toString());
    return all.toArray(String[]::new);
  }

  @Test
  void rolesNeedACluster() {
    Run r = run(withConfig("serve", "--roles", "mcp"));
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains("--roles needs --cluster (or cluster.enabled): a single node runs every role"), r.err());
    Run unknown = run(withConfig("serve", "--cluster", "--roles", "http,web"));
    assertEquals(2, unknown.code(), unknown.err());
    assertTrue(unknown.err().contains("--roles: unknown role 'web' (roles are http, conversation, mcp)"), unknown.err());
  }

  @Test
  void toolsListsEveryServer() {
    Run r = run(withConfig("tools"));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("everything (mcp-servers/everything"), r.out());
    assertTrue(r.out().contains("  echo - "), r.out());
    assertTrue(r.out().contains("fake (fake-plain 1.0, protocol 2025-11-25): 3 tools"), r.out());
  }

  @Test
  void toolsJsonIsOneDocumentWithRawDefinitions() {
    Run r = run(withConfig("tools", "--json"));
    assertEquals(0, r.code(), r.err());
    JsonObject doc = new JsonObject(r.out());
    JsonObject fake = doc.getJsonObject("servers").getJsonObject("fake");
    assertEquals("hang", fake.getJsonArray("tools").getJsonObject(1).getString("name"));
    assertTrue(fake.getJsonArray("tools").getJsonObject(0).containsKey("inputSchema"));
  }

  @Test
  void callPrintsTheResultWithExitCodes() {
    Run ok = run(withConfig("call", "everything", "echo", "{\"message\":\"cli\"}"));
    assertEquals(0, ok.code(), ok.err());
    assertEquals("Echo: cli", new JsonObject(ok.out()).getJsonArray("content").getJsonObject(0).getString("text"));

    Run toolError = run(withConfig("call", "everything", "echo", "{\"message\":42}"));
    assertEquals(1, toolError.code());
    assertTrue(new JsonObject(toolError.out()).getBoolean("isError"));

    Run timeout = run(withConfig("call", "fake", "hang", "{}", "--timeout", "200"));
    assertEquals(2, timeout.code());
    assertTrue(timeout.err().contains("timed out"), timeout.err());

    Run unknownMethodServer = run(withConfig("call", "nosuch", "echo"));
    assertEquals(2, unknownMethodServer.code());
    assertTrue(unknownMethodServer.err().contains("no server 'nosuch'"), unknownMethodServer.err());

    Run badJson = run(withConfig("call", "everything", "echo", "[1]"));
    assertEquals(2, badJson.code());
    assertTrue(badJson.err().contains("JSON-ARGS must be a JSON object"));
  }

  @Test
  void toolsAndCallHonourAllowedAndDisabledTools() {
    Run tools = run(withConfig("tools"));
    assertEquals(0, tools.code(), tools.err());
    assertTrue(tools.out().contains("narrow (fake-plain 1.0, protocol 2025-11-25): 1 tools (2 more hidden by"
      + " allowedTools/disabledTools; --include-hidden lists them)\n  echo - fake echo\n"), tools.out());
    assertFalse(tools.out().contains("  hang [hidden]"), tools.out());

    Run all = run(withConfig("tools", "--include-hidden"));
    assertTrue(all.out().contains("  hang [hidden] - fake hang"), all.out());
    assertTrue(all.out().contains("  die [hidden] - fake die"), all.out());

    JsonObject narrow = new JsonObject(run(withConfig("tools", "--json")).out()).getJsonObject("servers").getJsonObject("narrow");
    assertEquals(1, narrow.getJsonArray("tools").size());
    assertEquals(new JsonArray().add("hang").add("die"), narrow.getJsonArray("hidden"));

    Run refused = run(withConfig("call", "narrow", "die"));
    assertEquals(2, refused.code());
    assertTrue(refused.err().contains("tool 'die' of server 'narrow' is hidden"), refused.err());

    // Included on purpose: the tool runs (and kills its server), reported with the server named once.
    Run included = run(withConfig("call", "narrow", "die", "--include-hidden"));
    assertEquals(2, included.code());
    assertTrue(included.err().contains("server 'narrow' exited (code 7)"), included.err());
    assertEquals(1, included.err().split("server 'narrow'", -1).length - 1, included.err());
  }

  @Test
  void badConfigStopsWithAMessageNamingServerAndField() throws Exception {
    Path bad = Files.writeString(dir.resolve("bad.json"), "{\"mcpServers\": {\"broken\": {\"command\": \"x\", \"args\": 7}}}");
    Run r = run("tools", "--mcp-config", bad.toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("server 'broken': field 'args' must be an array of strings"), r.err());
    Run missing = run("tools", "--mcp-config", dir.resolve("nope.json").toString());
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains("cannot read the MCP config"), missing.err());
  }

  @Test
  void unknownCommandsAndOptionsAreUsageErrors() {
    assertEquals(2, run("frobnicate").code());
    assertEquals(2, run("tools", "--bogus").code());
  }
}
