package io.agentbus.mcp;

import io.agentbus.options.ConfigException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the operator gives each tenant for its MCP connections: the {@code tenants} section of
 * the agent config, {@code {"acme": {"secrets": {"GITHUB_TOKEN": "..."}, "roots": {"files":
 * [{"uri": "file:///data/acme"}]}}}}: secrets, which {@code ${tenant.secret.GITHUB_TOKEN}} in a
 * scoped server's {@code env} or {@code headers} refers to, and per server the roots the
 * tenant's calls offer (instead of the server's own; a conversation's roots win over both). Immutable. Secret values never leave it except into the connection of their own
 * tenant: {@link #toString()} names the tenants only, and errors name tenants and secret names,
 * never values.
 */
public final class Tenants {

  private static final Tenants NONE = new Tenants(Map.of(), Map.of());

  private final Map<String, Map<String, String>> secrets;
  /** Tenant → server → roots. */
  private final Map<String, Map<String, JsonArray>> roots;

  private Tenants(Map<String, Map<String, String>> secrets, Map<String, Map<String, JsonArray>> roots) {
    this.secrets = secrets;
    this.roots = roots;
  }

  /** @return no tenants (every {@code ${tenant.secret.*}} is missing) */
  public static Tenants none() {
    return NONE;
  }

  /** @return a copy of the given secrets: tenant id → (secret name → value) */
  public static Tenants of(Map<String, Map<String, String>> secrets) {
    Map<String, Map<String, String>> copy = new LinkedHashMap<>();
    secrets.forEach((tenant, s) -> copy.put(Objects.requireNonNull(tenant, "tenant"), Map.copyOf(s)));
    return new Tenants(Collections.unmodifiableMap(copy), Map.of());
  }

  /** @return these tenants, with {@code tenant}'s roots for {@code server} set (checked as mcp.json roots) */
  public Tenants withRoots(String tenant, String server, JsonArray serverRoots) {
    Map<String, Map<String, JsonArray>> all = new LinkedHashMap<>(roots);
    Map<String, JsonArray> mine = new LinkedHashMap<>(all.getOrDefault(tenant, Map.of()));
    mine.put(server, McpRoots.check(serverRoots, "tenants." + tenant + ".roots." + server));
    all.put(tenant, Collections.unmodifiableMap(mine));
    return new Tenants(secrets, Collections.unmodifiableMap(all));
  }

  /**
   * Reads the {@code tenants} section, already {@code ${VAR}}-expanded.
   *
   * @param json {@code {tenant: {secrets: {NAME: value}}}}, or {@code null} for none
   * @param owner names the file for errors
   * @throws ConfigException naming the tenant and field (never a secret's value)
   */
  public static Tenants fromJson(JsonObject json, String owner) {
    if (json == null || json.isEmpty()) {
      return NONE;
    }
    Map<String, Map<String, String>> all = new LinkedHashMap<>();
    Map<String, Map<String, JsonArray>> allRoots = new LinkedHashMap<>();
    for (Map.Entry<String, Object> t : json) {
      String path = owner + ": field 'tenants." + t.getKey();
      if (t.getKey().isBlank()) {
        throw new ConfigException(owner + ": field 'tenants' must not hold an empty tenant name");
      }
      if (!(t.getValue() instanceof JsonObject entry)) {
        throw new ConfigException(path + "' must be an object {\"secrets\": {NAME: value}}");
      }
      for (String field : entry.fieldNames()) {
        if (!field.equals("secrets") && !field.equals("roots")) {
          throw new ConfigException(path + "." + field + "' is unknown (a tenant has 'secrets' and 'roots')");
        }
      }
      Object s = entry.getValue("secrets");
      Map<String, String> secrets = new LinkedHashMap<>();
      if (s != null) {
        if (!(s instanceof JsonObject obj)) {
          throw new ConfigException(path + ".secrets' must be an object of NAME: string value");
        }
        for (Map.Entry<String, Object> e : obj) {
          if (!(e.getValue() instanceof String value)) {
            throw new ConfigException(path + ".secrets." + e.getKey() + "' must be a string");
          }
          secrets.put(e.getKey(), value);
        }
      }
      all.put(t.getKey(), secrets);
      Object r = entry.getValue("roots");
      if (r != null) {
        if (!(r instanceof JsonObject byServer)) {
          throw new ConfigException(path + ".roots' must be an object of server name: [{uri, name?}]");
        }
        Map<String, JsonArray> mine = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : byServer) {
          try {
            mine.put(e.getKey(), McpRoots.check(e.getValue(), path + ".roots." + e.getKey() + "'"));
          } catch (IllegalArgumentException bad) {
            throw new ConfigException(bad.getMessage());
          }
        }
        allRoots.put(t.getKey(), Collections.unmodifiableMap(mine));
      }
    }
    return new Tenants(of(all).secrets, Collections.unmodifiableMap(allRoots));
  }

  /**
   * @return the roots {@code tenant}'s calls of {@code server} offer, or {@code null} when the
   *     operator gave that tenant none for it (the server's own roots apply)
   */
  public JsonArray roots(String tenant, String server) {
    Map<String, JsonArray> mine = tenant == null ? null : roots.get(tenant);
    return mine == null ? null : mine.get(server);
  }

  /** @return the tenant's secret, or {@code null} when that tenant or that secret is not configured */
  public String secret(String tenant, String name) {
    Map<String, String> s = tenant == null ? null : secrets.get(tenant);
    return s == null ? null : s.get(name);
  }

  /** @return the configured tenant ids */
  public Set<String> ids() {
    return secrets.keySet();
  }

  @Override
  public String toString() {
    return "Tenants" + secrets.keySet();
  }
}
