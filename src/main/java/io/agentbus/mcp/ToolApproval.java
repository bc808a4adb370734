package io.agentbus.mcp;

import io.vertx.core.json.JsonObject;

/**
 * Whether a tool call waits for a person to approve it ({@code approval} in {@code mcp.json}
 * per server and per tool, with a default in {@code agent.json}).
 */
public enum ToolApproval {
  /** Calls run without asking (the default). */
  NEVER("never"),
  /** Calls of tools that may act destructively on the world wait for approval (see {@link #destructive}). */
  DESTRUCTIVE("destructive"),
  /** Every call waits for approval. */
  ALWAYS("always");

  private final String id;

  ToolApproval(String id) {
    this.id = id;
  }

  /** @return the configuration word: {@code never}, {@code destructive} or {@code always} */
  public String id() {
    return id;
  }

  /** @return the value named {@code id}, or {@code null} for any other string */
  public static ToolApproval find(String id) {
    for (ToolApproval a : values()) {
      if (a.id.equals(id)) {
        return a;
      }
    }
    return null;
  }

  /** The allowed words, for error messages. */
  public static final String CHOICES = "\"never\", \"destructive\" or \"always\"";

  /**
   * @param destructive whether the tool counts as destructive ({@link #destructive})
   * @return whether a call of such a tool waits for approval under this policy
   */
  public boolean asks(boolean destructive) {
    return this == ALWAYS || this == DESTRUCTIVE && destructive;
  }

  /**
   * Reads a tool's annotations with the MCP defaults ({@code destructiveHint} true,
   * {@code readOnlyHint} false): a tool is destructive when its {@code destructiveHint} is
   * true, or when that hint is absent and it is not {@code readOnlyHint}. A hint that is not a
   * boolean counts as absent.
   *
   * @param definition the raw MCP {@code Tool} object
   */
  public static boolean destructive(JsonObject definition) {
    JsonObject annotations = definition.getValue("annotations") instanceof JsonObject a ? a : null;
    Object destructive = annotations == null ? null : annotations.getValue("destructiveHint");
    if (destructive instanceof Boolean b) {
      return b;
    }
    Object readOnly = annotations == null ? null : annotations.getValue("readOnlyHint");
    return !Boolean.TRUE.equals(readOnly);
  }
}
