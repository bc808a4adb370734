package io.agentbus.conversation;

import io.agentbus.mcp.server.ToolFilter;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Which catalog tools a conversation offers the model: model-side names or {@code *} globs
 * (e.g. {@code mcp__files__*}); empty means every tool.
 */
public final class ToolSelection {

  /** Every tool. */
  public static final ToolSelection ALL = new ToolSelection(List.of());

  private final List<String> patterns;
  private final ToolFilter filter;

  public ToolSelection(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
    this.filter = new ToolFilter(patterns, List.of());
  }

  /** @return the subset of {@code tools} (provider-neutral definitions) it allows */
  public JsonArray select(JsonArray tools) {
    if (patterns.isEmpty()) {
      return tools;
    }
    JsonArray out = new JsonArray();
    for (Object t : tools) {
      if (t instanceof JsonObject def && filter.allows(def.getString("name"))) {
        out.add(def);
      }
    }
    return out;
  }

  /** @return whether it offers every tool */
  public boolean all() {
    return patterns.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ToolSelection other && other.patterns.equals(patterns);
  }

  @Override
  public int hashCode() {
    return patterns.hashCode();
  }

  public JsonArray toJson() {
    return new JsonArray(List.copyOf(patterns));
  }

  /** @return the form kept in the conversation store: {@code {patterns: [...]}} */
  JsonObject toStored() {
    return new JsonObject().put("patterns", toJson());
  }

  /**
   * @param stored what {@link #toStored()} made ({@code {}}: every tool)
   * @throws IllegalArgumentException when it is not that shape
   */
  static ToolSelection fromJson(JsonObject stored) {
    Object patterns = stored == null ? null : stored.getValue("patterns");
    if (patterns == null) {
      return ALL;
    }
    if (!(patterns instanceof JsonArray arr) || !arr.stream().allMatch(p -> p instanceof String)) {
      throw new IllegalArgumentException("its tool selection is not {patterns: [strings]}");
    }
    return arr.isEmpty() ? ALL : new ToolSelection(arr.stream().map(String.class::cast).toList());
  }
}
