package io.agentbus.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.config.AgentConfig;
import io.agentbus.config.McpConfig;
import io.agentbus.dispatch.ToolApprover;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.ToolApproval;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The approval policy: the MCP annotation defaults, per-tool over per-server over the global
 * default, decided once per catalog entry, and the configuration errors.
 */
class ToolApprovalPolicyTest {

  private static JsonObject tool(String name, JsonObject annotations) {
    JsonObject def = new JsonObject().put("name", name).put("inputSchema", new JsonObject().put("type", "object"));
    return annotations == null ? def : def.put("annotations", annotations);
  }

  private static JsonObject hints(Object readOnly, Object destructive) {
    JsonObject a = new JsonObject();
    if (readOnly != null) {
      a.put("readOnlyHint", readOnly);
    }
    if (destructive != null) {
      a.put("destructiveHint", destructive);
    }
    return a;
  }

  @Test
  void destructiveFollowsTheMcpDefaults() {
    assertTrue(ToolApproval.destructive(tool("t", null)), "no annotations: destructiveHint defaults to true");
    assertTrue(ToolApproval.destructive(tool("t", hints(null, null))));
    assertFalse(ToolApproval.destructive(tool("t", hints(true, null))), "read-only without destructiveHint");
    assertTrue(ToolApproval.destructive(tool("t", hints(false, null))));
    assertFalse(ToolApproval.destructive(tool("t", hints(null, false))));
    assertFalse(ToolApproval.destructive(tool("t", hints(false, false))));
    assertTrue(ToolApproval.destructive(tool("t", hints(true, true))), "an explicit destructiveHint: true asks");
    assertTrue(ToolApproval.destructive(tool("t", hints("yes", "no"))), "hints that are not booleans count as absent");
  }

  @Test
  void eachPolicyAsks() {
    assertFalse(ToolApproval.NEVER.asks(true));
    assertFalse(ToolApproval.DESTRUCTIVE.asks(false));
    assertTrue(ToolApproval.DESTRUCTIVE.asks(true));
    assertTrue(ToolApproval.ALWAYS.asks(false));
  }

  @Test
  void perToolOverridesPerServerOverridesTheGlobalDefault() {
    Map<String, List<JsonObject>> tools = Map.of(
      "fs", List.of(tool("read", hints(true, null)), tool("write", null), tool("stat", hints(true, null))),
      "web", List.of(tool("fetch", hints(true, null)), tool("post", null)));
    McpServerOptions fs = new McpServerOptions().setName("fs").setApproval(ToolApproval.DESTRUCTIVE)
      .setToolApprovals(Map.of("stat", ToolApproval.ALWAYS, "write", ToolApproval.NEVER));
    CatalogSnapshot s = CatalogSnapshot.build(1, tools, Map.of("fs", fs.approvalJson()), null);
    // the server's policy wins over any default; its tools' own policies win over the server's
    for (ToolApproval global : ToolApproval.values()) {
      assertFalse(s.byName("mcp__fs__read").asksApproval(global), "read-only under destructive");
      assertFalse(s.byName("mcp__fs__write").asksApproval(global), "per-tool never");
      assertTrue(s.byName("mcp__fs__stat").asksApproval(global), "per-tool always");
    }
    // a server without a policy follows the global default
    assertFalse(s.byName("mcp__web__post").asksApproval(ToolApproval.NEVER));
    assertTrue(s.byName("mcp__web__post").asksApproval(ToolApproval.DESTRUCTIVE));
    assertFalse(s.byName("mcp__web__fetch").asksApproval(ToolApproval.DESTRUCTIVE));
    assertTrue(s.byName("mcp__web__fetch").asksApproval(ToolApproval.ALWAYS));
    assertEquals(null, new McpServerOptions().setName("web").approvalJson(), "nothing configured, nothing published");
  }

  @Test
  void aPolicyChangeKeepsTheCompiledEntryAndUnchangedEntriesStayTheSame() {
    Map<String, List<JsonObject>> tools = Map.of("fs", List.of(tool("write", null)));
    CatalogSnapshot first = CatalogSnapshot.build(1, tools, Map.of(), null);
    CatalogSnapshot same = CatalogSnapshot.build(2, tools, Map.of(), first);
    assertSame(first.byName("mcp__fs__write"), same.byName("mcp__fs__write"));
    CatalogSnapshot always = CatalogSnapshot.build(3, tools, Map.of("fs", new JsonObject().put("approval", "always")), same);
    CatalogEntry changed = always.byName("mcp__fs__write");
    assertSame(ToolApproval.ALWAYS, changed.approval());
    assertSame(first.byName("mcp__fs__write").input(), changed.input(), "the schema is not compiled again");
  }

  @Test
  void aDispatchNobodyCanApproveRefusesOnlyToolsWhoseServerOrSelfAsks() {
    CatalogSnapshot s = CatalogSnapshot.build(1, Map.of("fs", List.of(tool("write", null)), "web", List.of(tool("post", null))),
      Map.of("fs", new JsonObject().put("approval", "destructive")), null);
    assertTrue(ToolApprover.NONE.needsApproval(s.byName("mcp__fs__write")));
    assertFalse(ToolApprover.NONE.needsApproval(s.byName("mcp__web__post")));
  }

  private static String mcpError(String entry) {
    return assertThrows(ConfigException.class, () -> McpConfig.fromJson(
      new JsonObject("{\"mcpServers\": {\"a\": " + entry + "}}"), EnvExpander.of(Map.of()))).getMessage();
  }

  @Test
  void configErrorsNameTheFieldAndTheChoices() {
    assertEquals("server 'a': field 'approval' must be \"never\", \"destructive\" or \"always\" (was \"sometimes\")",
      mcpError("{\"command\": \"x\", \"approval\": \"sometimes\"}"));
    assertEquals("server 'a': field 'toolApprovals.rm' must be \"never\", \"destructive\" or \"always\" (was \"ALWAYS\")",
      mcpError("{\"command\": \"x\", \"toolApprovals\": {\"rm\": \"ALWAYS\"}}"));
    assertEquals("server 'a': field 'approval' must be a string (was true)",
      mcpError("{\"command\": \"x\", \"approval\": true}"));
    assertEquals("agent config: field 'approvals.default' must be \"never\", \"destructive\" or \"always\" (was \"maybe\")",
      assertThrows(ConfigException.class, () -> AgentConfig.fromJson(
        new JsonObject().put("approvals", new JsonObject().put("default", "maybe")), Map.of())).getMessage());
    assertThrows(ConfigException.class, () -> AgentConfig.fromJson(
      new JsonObject().put("approvals", new JsonObject().put("timeoutMs", 0)), Map.of()));
    McpServerOptions ok = McpConfig.fromJson(new JsonObject("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"approval\": \"always\","
      + " \"toolApprovals\": {\"ls\": \"never\"}}}}"), EnvExpander.of(Map.of())).servers().get(0);
    assertSame(ToolApproval.ALWAYS, ok.getApproval());
    assertEquals(Map.of("ls", ToolApproval.NEVER), ok.getToolApprovals());
    assertEquals(List.of(), ok.unknownFields());
    assertSame(ToolApproval.NEVER, AgentConfig.fromJson(new JsonObject(), Map.of()).conversation().getApproval());
  }
}
