package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Scope;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code scope}, the tenant placeholders in mcp.json and the {@code tenants} section of agent.json. */
class ScopeConfigTest {

  private static McpServerOptions server(JsonObject entry) {
    return McpConfig.fromJson(new JsonObject().put("mcpServers", new JsonObject().put("gh", entry)),
      EnvExpander.of(Map.of("GH_URL", "https://example.test/mcp"))).servers().get(0);
  }

  private static String error(JsonObject entry) {
    return assertThrows(ConfigException.class, () -> server(entry)).getMessage();
  }

  private static JsonObject stdio() {
    return new JsonObject().put("command", "gh-mcp");
  }

  @Test
  void scopeAndItsLimitsAreReadWithTheirDefaults() {
    McpServerOptions plain = server(stdio());
    assertEquals(Scope.SHARED, plain.getScope());
    assertEquals(McpServerOptions.DEFAULT_IDLE_TIMEOUT_MS, plain.getIdleTimeoutMs());
    assertEquals(McpServerOptions.DEFAULT_MAX_CONNECTIONS, plain.getMaxConnections());
    McpServerOptions scoped = server(stdio().put("scope", "conversation").put("idleTimeoutMs", 1000).put("maxConnections", 7)
      .put("env", new JsonObject().put("TOKEN", "${tenant.secret.GITHUB_TOKEN}").put("USER", "u-${tenant.id}")));
    assertEquals(Scope.CONVERSATION, scoped.getScope());
    assertEquals(1000, scoped.getIdleTimeoutMs());
    assertEquals(7, scoped.getMaxConnections());
    assertEquals("${tenant.secret.GITHUB_TOKEN}", scoped.getEnv().get("TOKEN"), "expanded per connection, not at load");
    McpServerOptions copy = new McpServerOptions(scoped.toJson());
    assertEquals(Scope.CONVERSATION, copy.getScope());
    assertEquals(7, copy.getMaxConnections());
    assertEquals("", scoped.withoutTenantValues().getEnv().get("TOKEN"));
    assertEquals("u-", scoped.withoutTenantValues().getEnv().get("USER"));
    assertSame(plain, plain.withoutTenantValues());
  }

  @Test
  void headersMayUseTenantValuesToo() {
    McpServerOptions http = server(new JsonObject().put("url", "${GH_URL}").put("scope", "tenant")
      .put("headers", new JsonObject().put("Authorization", "Bearer ${tenant.secret.GITHUB_TOKEN}")));
    assertEquals("https://example.test/mcp", http.getUrl());
    assertEquals("Bearer ${tenant.secret.GITHUB_TOKEN}", http.getHeaders().get("Authorization"));
  }

  @Test
  void aTenantPlaceholderInASharedServerIsAnError() {
    String message = error(stdio().put("env", new JsonObject().put("TOKEN", "${tenant.secret.GITHUB_TOKEN}")));
    assertEquals("server 'gh': field 'env.TOKEN' uses a ${tenant.*} placeholder, but the server's scope is 'shared'"
      + " (one connection for every tenant): set \"scope\": \"tenant\" or \"conversation\"", message);
    assertTrue(error(new JsonObject().put("url", "https://x.test").put("headers", new JsonObject().put("X-User", "${tenant.id}")))
      .contains("field 'headers.X-User' uses a ${tenant.*} placeholder"));
  }

  @Test
  void tenantPlaceholdersAreAllowedOnlyInEnvAndHeaders() {
    String message = error(stdio().put("scope", "tenant").put("args", new io.vertx.core.json.JsonArray().add("--user=${tenant.id}")));
    assertTrue(message.contains("allowed only in 'env' and 'headers'"), message);
    assertTrue(error(new JsonObject().put("url", "https://x.test/${tenant.id}").put("scope", "tenant"))
      .contains("allowed only in 'env' and 'headers'"));
  }

  @Test
  void badScopesAndPlaceholdersAreErrorsNamingTheField() {
    assertEquals("server 'gh': field 'scope' must be one of shared, tenant, conversation", error(stdio().put("scope", "user")));
    assertTrue(error(stdio().put("scope", "tenant").put("env", new JsonObject().put("A", "${tenant.token}")))
      .contains("field 'env.A': unknown placeholder '${tenant.token}'"));
    assertTrue(error(stdio().put("maxConnections", 0)).contains("maxConnections"));
    assertTrue(error(stdio().put("idleTimeoutMs", 0)).contains("idleTimeoutMs"));
  }

  @Test
  void theTenantsSectionIsReadAndCheckedWithoutShowingSecrets() {
    AgentConfig config = AgentConfig.fromJson(new JsonObject().put("tenants", new JsonObject()
      .put("acme", new JsonObject().put("secrets", new JsonObject().put("GITHUB_TOKEN", "${ACME_GH}")))
      .put("globex", new JsonObject())), Map.of("ACME_GH", "ghp-acme-123"));
    assertEquals("ghp-acme-123", config.tenants().secret("acme", "GITHUB_TOKEN"));
    assertNull(config.tenants().secret("globex", "GITHUB_TOKEN"));
    assertNull(config.tenants().secret("initech", "GITHUB_TOKEN"));
    assertFalse(config.tenants().toString().contains("ghp-"), config.tenants().toString());
    assertTrue(config.unknownFields().isEmpty(), config.unknownFields().toString());

    assertNull(AgentConfig.fromJson(new JsonObject(), Map.of()).tenants().secret("acme", "X"));
    String notString = assertThrows(ConfigException.class, () -> AgentConfig.fromJson(new JsonObject().put("tenants",
      new JsonObject().put("acme", new JsonObject().put("secrets", new JsonObject().put("N", 12345678)))), Map.of())).getMessage();
    assertEquals("agent config: field 'tenants.acme.secrets.N' must be a string", notString);
    assertFalse(notString.contains("12345678"));
    assertTrue(assertThrows(ConfigException.class, () -> AgentConfig.fromJson(new JsonObject().put("tenants",
      new JsonObject().put("acme", new JsonObject().put("secret", new JsonObject()))), Map.of())).getMessage()
      .contains("field 'tenants.acme.secret' is unknown"));
    assertTrue(assertThrows(ConfigException.class, () -> AgentConfig.fromJson(new JsonObject().put("tenants", "x"), Map.of()))
      .getMessage().contains("field 'tenants' must be an object"));
  }
}
