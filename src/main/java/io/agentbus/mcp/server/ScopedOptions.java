package io.agentbus.mcp.server;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.Tenants;
import io.agentbus.options.TenantPlaceholders;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A scoped server's options per connection: {@code ${tenant.id}} and
 * {@code ${tenant.secret.NAME}} in {@code env} and {@code headers} expanded for one key, from
 * the {@link Tenants} of the agent config. A tenant lacking a secret gets no options at all
 * (no connection is opened); another tenant's value is never a fallback.
 */
final class ScopedOptions {

  private final McpServerOptions options;
  private final Tenants tenants;

  /** @throws io.agentbus.options.ConfigException when a placeholder is malformed or misplaced */
  ScopedOptions(McpServerOptions options, Tenants tenants) {
    options.checkTenantPlaceholders();
    this.options = options;
    this.tenants = tenants;
  }

  /**
   * @return the options of the key's connection
   * @throws TenantPlaceholders.Missing when the key has no tenant but the options need one, or
   *     its tenant lacks a secret they use
   */
  McpServerOptions resolve(ScopeKey key) {
    if (options.getScope() == McpServerOptions.Scope.TENANT && key.tenant() == null) {
      throw new TenantPlaceholders.Missing("its scope is 'tenant' and the call names no tenant"
        + " (the HTTP API names one when http.tokens are configured)");
    }
    String owner = "server '" + options.getName() + "': ";
    return new McpServerOptions(options)
      .setEnv(map(options.getEnv(), v -> TenantPlaceholders.expand(v.getValue(), key.tenant(),
        n -> tenants.secret(key.tenant(), n), owner + "env." + v.getKey())))
      .setHeaders(map(options.getHeaders(), v -> TenantPlaceholders.expand(v.getValue(), key.tenant(),
        n -> tenants.secret(key.tenant(), n), owner + "headers." + v.getKey())));
  }

  /**
   * @return the options of the listing connection, which lists the tools for the catalog and
   *     serves no call: it runs as no tenant, every tenant placeholder expanded to the empty string
   */
  McpServerOptions listing() {
    return options.withoutTenantValues();
  }

  private static Map<String, String> map(Map<String, String> in, java.util.function.Function<Map.Entry<String, String>, String> f) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : in.entrySet()) {
      out.put(e.getKey(), f.apply(e));
    }
    return out;
  }
}
