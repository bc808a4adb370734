package io.agentbus.options;

import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expands {@code ${VAR}}, {@code ${env:VAR}} (VS Code style) and {@code ${VAR:-default}} in
 * configuration values. A variable that is unset and has no default is an error naming the
 * field; its value is never part of any message.
 */
public final class EnvExpander {

  private static final Pattern REF = Pattern.compile("\\$\\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

  private final Function<String, String> lookup;

  public EnvExpander(Function<String, String> lookup) {
    this.lookup = lookup;
  }

  /** An expander reading the process environment. */
  public static EnvExpander system() {
    return new EnvExpander(System::getenv);
  }

  /** An expander reading the given map (tests). */
  public static EnvExpander of(Map<String, String> env) {
    return new EnvExpander(env::get);
  }

  /**
   * Expands every reference in {@code value}.
   *
   * @param where names the field for error messages, e.g. {@code server 'x': env.TOKEN}
   */
  public String expand(String value, String where) {
    if (value == null || value.indexOf("${") < 0) {
      return value;
    }
    Matcher m = REF.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String resolved = lookup.apply(m.group(1));
      if (resolved == null) {
        resolved = m.group(2);
      }
      if (resolved == null) {
        throw new ConfigException(where + ": environment variable '" + m.group(1) + "' is not set");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(resolved));
    }
    m.appendTail(out);
    return out.toString();
  }
}
