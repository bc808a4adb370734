package io.agentbus.options;

import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The per-tenant placeholders of {@code mcp.json}: {@code ${tenant.id}} (the caller's tenant)
 * and {@code ${tenant.secret.NAME}} (that tenant's secret {@code NAME} from the agent config's
 * {@code tenants} section). They take no {@code :-default}: a tenant without the secret must
 * never get someone else's value. {@link EnvExpander} leaves them alone (a dot is not part of
 * an environment variable name), so they survive loading and expand per connection.
 */
public final class TenantPlaceholders {

  /** Everything that starts like a tenant placeholder, so a typo is an error, not a literal. */
  private static final Pattern REF = Pattern.compile("\\$\\{tenant\\.([^}]*)}");
  private static final Pattern SECRET_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final String SECRET = "secret.";

  /** A value needs something the caller's tenant does not have; the message names what, never a value. */
  public static final class Missing extends RuntimeException {
    public Missing(String message) {
      super(message, null, false, false);
    }
  }

  private TenantPlaceholders() {
  }

  /** @return whether the value holds a tenant placeholder */
  public static boolean mentions(String value) {
    return value != null && value.contains("${tenant.");
  }

  /**
   * Checks the syntax of every tenant placeholder in the value.
   *
   * @param where names the field for the error, e.g. {@code server 'x': env.TOKEN}
   * @throws ConfigException naming the field and the placeholder
   */
  public static void check(String value, String where) {
    if (!mentions(value)) {
      return;
    }
    Matcher m = REF.matcher(value);
    int found = 0;
    while (m.find()) {
      found++;
      String ref = m.group(1);
      boolean ok = ref.equals("id") || ref.startsWith(SECRET) && SECRET_NAME.matcher(ref.substring(SECRET.length())).matches();
      if (!ok) {
        throw new ConfigException(where + ": unknown placeholder '${tenant." + ref + "}' (use ${tenant.id} or ${tenant.secret.NAME})");
      }
    }
    if (found == 0) {
      throw new ConfigException(where + ": unclosed '${tenant.' placeholder");
    }
  }

  /**
   * Expands every tenant placeholder of a value already {@link #check checked}.
   *
   * @param tenant the tenant's id, or {@code null} when the caller names none
   * @param secret looks up one of that tenant's secrets by name ({@code null}: missing)
   * @param where names the field for the error
   * @throws Missing when the caller names no tenant, or the tenant lacks a secret the value uses
   */
  public static String expand(String value, String tenant, Function<String, String> secret, String where) {
    if (!mentions(value)) {
      return value;
    }
    Matcher m = REF.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String ref = m.group(1);
      if (tenant == null) {
        throw new Missing(where + " uses ${tenant." + ref + "} but the call names no tenant");
      }
      String resolved;
      if (ref.equals("id")) {
        resolved = tenant;
      } else {
        String name = ref.substring(SECRET.length());
        resolved = secret.apply(name);
        if (resolved == null) {
          throw new Missing("tenant '" + tenant + "' has no secret '" + name + "' (tenants." + tenant
            + ".secrets in the agent config), which " + where + " uses");
        }
      }
      m.appendReplacement(out, Matcher.quoteReplacement(resolved));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Replaces every tenant placeholder by the empty string (the listing connection, which runs as no tenant). */
  public static String blank(String value) {
    return mentions(value) ? REF.matcher(value).replaceAll("") : value;
  }
}
