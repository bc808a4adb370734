package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.ToolApproval;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class McpConfigTest {

  private static final EnvExpander ENV = EnvExpander.of(Map.of("TOKEN", "s3cr3t", "DIR", "/data"));

  private static McpConfig parse(String json) {
    return McpConfig.fromJson(new JsonObject(json), ENV);
  }

  private static String error(String json) {
    return assertThrows(ConfigException.class, () -> parse(json)).getMessage();
  }

  @Test
  void readsTheClaudeDesktopFormatWithExpansion() {
    McpConfig config = parse("""
      {"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "server-filesystem", "${DIR}"], "env": {"API_KEY": "${TOKEN}"},
               "timeoutMs": 5000, "allowedTools": ["read_*"], "disabledTools": ["read_media_file"], "unknownField": 1},
        "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        "forced": {"type": "sse", "url": "http://localhost:1/sse"},
        "off": {"command": "${UNSET_VAR}", "disabled": true}
      }}""");
    McpServerOptions fs = config.servers().get(0);
    assertEquals("fs", fs.getName());
    assertEquals(McpServerOptions.Transport.STDIO, fs.getTransport());
    assertEquals(List.of("-y", "server-filesystem", "/data"), fs.getArgs());
    assertEquals("s3cr3t", fs.getEnv().get("API_KEY"));
    assertEquals(5000, fs.getTimeoutMs());
    assertEquals(List.of("read_*"), fs.getAllowedTools());
    McpServerOptions remote = config.servers().get(1);
    assertEquals(McpServerOptions.Transport.AUTO_HTTP, remote.getTransport());
    assertEquals("Bearer s3cr3t", remote.getHeaders().get("Authorization"));
    assertFalse(remote.toString().contains("s3cr3t"));
    assertEquals(McpServerOptions.Transport.SSE, config.servers().get(2).getTransport());
    assertEquals(3, config.enabledServers().size());
  }

  @Test
  void readsTheVsCodeServersKeyAndDefaultVariables() {
    McpConfig config = parse("""
      {"servers": {"a": {"type": "stdio", "command": "${env:DIR}/bin/srv", "args": ["${MISSING:-fallback}"]}}}""");
    assertEquals("/data/bin/srv", config.servers().get(0).getCommand());
    assertEquals(List.of("fallback"), config.servers().get(0).getArgs());
  }

  @Test
  void optionsSurviveAJsonRoundTrip() {
    McpServerOptions original = parse("""
      {"mcpServers": {"x": {"command": "srv", "args": ["a"], "env": {"K": "v"}, "cwd": "/tmp",
        "maxConcurrentCalls": 3, "restart": {"initialBackoffMs": 10, "maxBackoffMs": 20, "downAfterFailures": 4}}}}""")
      .servers().get(0);
    McpServerOptions copy = new McpServerOptions(original.toJson());
    assertEquals(original.toJson(), copy.toJson());
    assertEquals(3, copy.getMaxConcurrentCalls());
    assertEquals(4, copy.getDownAfterFailures());
  }

  @Test
  void theJsonConstructorReadsEveryField() {
    McpServerOptions full = new McpServerOptions().setName("x").setTransport(McpServerOptions.Transport.HTTP)
      .setCommand("c").setArgs(List.of("a")).setEnv(Map.of("K", "v")).setCwd("/w").setUrl("http://h")
      .setHeaders(Map.of("H", "v")).setDisabled(true).setAllowedTools(List.of("a*")).setDisabledTools(List.of("b"))
      .setTimeoutMs(11).setConnectTimeoutMs(12).setMaxTotalTimeoutMs(13).setMaxMessageBytes(14).setMaxConcurrentCalls(15)
      .setMaxPendingRequests(16).setMaxQueuedCalls(17).setShutdownGraceMs(18).setTerminateGraceMs(19)
      .setRestartInitialBackoffMs(20).setRestartMaxBackoffMs(21).setDownAfterFailures(22)
      .setScope(McpServerOptions.Scope.TENANT).setIdleTimeoutMs(23).setMaxConnections(24)
      .setOauth(new io.agentbus.mcp.auth.OAuthOptions().setClientId("id"))
      .setRoots(new io.vertx.core.json.JsonArray().add(new JsonObject().put("uri", "file:///r")))
      .setSampling(new io.agentbus.mcp.SamplingOptions(true, 23, 24, "never"))
      .setApproval(ToolApproval.DESTRUCTIVE).setToolApprovals(Map.of("rm", ToolApproval.ALWAYS));
    JsonObject json = full.toJson();
    JsonObject defaults = new McpServerOptions().setName("y").toJson();
    // every setter has a JSON field, and the test value of each differs from its default
    Map<String, String> jsonNames = Map.of("transport", "type", "restartInitialBackoffMs", "restart",
      "restartMaxBackoffMs", "restart", "downAfterFailures", "restart");
    for (java.lang.reflect.Method m : McpServerOptions.class.getMethods()) {
      if (m.getName().startsWith("set") && m.getReturnType() == McpServerOptions.class) {
        String p = Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
        String field = jsonNames.getOrDefault(p, p);
        assertTrue(json.containsKey(field), "set" + m.getName().substring(3) + " has no field in toJson()");
        assertFalse(json.getValue(field).equals(defaults.getValue(field)), field + ": give it a non-default value here");
      }
    }
    json.getJsonObject("restart").forEach(e -> assertFalse(e.getValue().equals(
      defaults.getJsonObject("restart").getValue(e.getKey())), "restart." + e.getKey() + ": give it a non-default value"));
    McpServerOptions copy = new McpServerOptions(json);
    assertEquals(json, copy.toJson());
    assertEquals(List.of(), copy.unknownFields());
  }

  @Test
  void errorsNameTheServerAndTheField() {
    assertEquals("server 'a': field 'command' is required for a stdio server (or give a 'url')",
      error("{\"mcpServers\": {\"a\": {\"args\": []}}}"));
    assertEquals("server 'a': field 'args' must be an array of strings (was a string)",
      error("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": \"-v\"}}}"));
    assertEquals("server 'a': field 'env.PORT' must be a string",
      error("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"PORT\": 8080}}}}"));
    assertEquals("server 'a': field 'timeoutMs' must be an integer >= 1 (was -1)",
      error("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"timeoutMs\": -1}}}"));
    assertEquals("server 'a': field 'disabled' must be true or false (was a string)",
      error("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"disabled\": \"yes\"}}}"));
    assertEquals("server 'a': field 'roots'[0] must be {\"uri\": \"file://...\", \"name\"?: string}",
      error("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"roots\": [{\"uri\": \"http://h\"}]}}}"));
    assertEquals("server 'a': sampling.approval must be \"never\" or \"always\"",
      error("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"sampling\": {\"enabled\": true, \"approval\": \"sometimes\"}}}}"));
    assertEquals("server 'a': field 'type' must be one of stdio, http, sse",
      error("{\"mcpServers\": {\"a\": {\"type\": \"grpc\", \"command\": \"x\"}}}"));
    assertEquals("server 'a': field 'url' must be an http:// or https:// URL",
      error("{\"mcpServers\": {\"a\": {\"type\": \"http\", \"url\": \"ftp://x\"}}}"));
    assertEquals("server 'a': env.K: environment variable 'NOPE' is not set",
      error("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": \"${NOPE}\"}}}}"));
    assertEquals("server 'bad name': the name must be 1-64 characters of [A-Za-z0-9_-]",
      error("{\"mcpServers\": {\"bad name\": {\"command\": \"x\"}}}"));
    assertEquals("server 'a': the entry must be an object", error("{\"mcpServers\": {\"a\": []}}"));
    assertEquals("no 'mcpServers' object", error("{}"));
  }

  @Test
  void pendingRequestsFollowTheCallCapAndMayNotBeLower() {
    McpServerOptions defaults = parse("{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}").servers().get(0);
    assertEquals(McpServerOptions.DEFAULT_MAX_CONCURRENT_CALLS, defaults.getMaxConcurrentCalls());
    assertEquals(McpServerOptions.DEFAULT_MAX_PENDING_REQUESTS, defaults.getMaxPendingRequests());
    assertEquals(McpServerOptions.DEFAULT_MAX_QUEUED_CALLS, defaults.getMaxQueuedCalls());
    McpServerOptions wide = parse("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"maxConcurrentCalls\": 10000}}}")
      .servers().get(0);
    assertEquals(10_000 + McpServerOptions.PENDING_REQUESTS_HEADROOM, wide.getMaxPendingRequests());
    assertEquals(10_000 + McpServerOptions.PENDING_REQUESTS_HEADROOM,
      new McpServerOptions(wide.toJson()).getMaxPendingRequests());
    assertEquals("server 'a': field 'maxPendingRequests' (10) must not be lower than 'maxConcurrentCalls' (64)",
      error("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"maxConcurrentCalls\": 64, \"maxPendingRequests\": 10}}}"));
  }

  @Test
  void fileErrorsNameTheFile(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("missing.json");
    assertTrue(assertThrows(ConfigException.class, () -> McpConfig.load(missing, ENV)).getMessage()
      .startsWith(missing + ": cannot read the MCP config"));
    Path bad = Files.writeString(dir.resolve("bad.json"), "{\"mcpServers\": ");
    assertTrue(assertThrows(ConfigException.class, () -> McpConfig.load(bad, ENV)).getMessage()
      .startsWith(bad + ": not valid JSON"));
  }
}
