package io.agentbus.mcp;

import io.agentbus.options.ConfigException;
import io.vertx.core.json.JsonObject;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the operator gives each tenant for its MCP connections: the {@code tenants} section of
 * the agent config, {@code {"acme": {"secrets": {"GITHUB_TOKEN": "..."}}}}, which
 * {@code ${tenant.secret.GITHUB_TOKEN}} in a scoped server's {@code env} or {@code headers}
 * refers to. Immutable. Secret values never leave it except into the connection of their own
 * tenant: {@link #toString()} names the tenants only, and errors name tenants and secret names,
 * never values.
 */
public final class Tenants {

  private static final Tenants NONE = new Tenants(Map.of());

  private final Map<String, Map<String, String>> secrets;

  private Tenants(Map<String, Map<String, String>> secrets) {
    this.secrets = secrets;
  }

  /** @return no tenants (every {@code ${tenant.secret.*}} is missing) */
  public static Tenants none() {
    return NONE;
  }

  /** @return a copy of the given secrets: tenant id → (secret name → value) */
  public static Tenants of(Map<String, Map<String, String>> secrets) {
    Map<String, Map<String, String>> copy = new LinkedHashMap<>();
    secrets.forEach((tenant, s) -> copy.put(Objects.requireNonNull(tenant, "tenant"), Map.copyOf(s)));
    return new Tenants(Collections.unmodifiableMap(copy));
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
    for (Map.Entry<String, Object> t : json) {
      String path = owner + ": field 'tenants." + t.getKey();
      if (t.getKey().isBlank()) {
        throw new ConfigException(owner + ": field 'tenants' must not hold an empty tenant name");
      }
      if (!(t.getValue() instanceof JsonObject entry)) {
        throw new ConfigException(path + "' must be an object {\"secrets\": {NAME: value}}");
      }
      for (String field : entry.fieldNames()) {
        if (!field.equals("secrets")) {
          throw new ConfigException(path + "." + field + "' is unknown (a tenant has only 'secrets')");
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
    }
    return of(all);
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
