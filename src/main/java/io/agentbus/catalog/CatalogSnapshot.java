package io.agentbus.catalog;

import io.agentbus.mcp.ToolApproval;
import io.agentbus.model.Provider;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An immutable view of every tool the configured MCP servers offer, under model-side names.
 * A model request uses one snapshot from start to end; its {@link #version()} travels with
 * the assistant turn to the dispatcher, which resolves names against that same version.
 */
public final class CatalogSnapshot {

  /** The snapshot before any server answered. */
  public static final CatalogSnapshot EMPTY = new CatalogSnapshot(0, List.of());

  private final long version;
  private final Map<String, CatalogEntry> byName;
  private final Map<ToolNames.Key, CatalogEntry> byTool;
  private final JsonArray anthropic;
  private final JsonArray openai;

  private CatalogSnapshot(long version, List<CatalogEntry> entries) {
    this.version = version;
    Map<String, CatalogEntry> names = new LinkedHashMap<>();
    Map<ToolNames.Key, CatalogEntry> tools = new LinkedHashMap<>();
    List<Object> a = new ArrayList<>();
    List<Object> o = new ArrayList<>();
    for (CatalogEntry e : entries) {
      names.put(e.name(), e);
      tools.put(new ToolNames.Key(e.server(), e.tool()), e);
      a.add(e.anthropic());
      o.add(e.openai());
    }
    this.byName = Collections.unmodifiableMap(names);
    this.byTool = Collections.unmodifiableMap(tools);
    this.anthropic = new JsonArray(Collections.unmodifiableList(a));
    this.openai = new JsonArray(Collections.unmodifiableList(o));
  }

  /**
   * Builds a snapshot.
   *
   * @param version the new version number
   * @param toolsByServer each server's raw MCP tool definitions (already filtered by the
   *     server verticle); servers are ordered by name, tools as the server listed them
   * @param previous the snapshot this one replaces: tools whose definition did not change
   *     keep their compiled schemas (no recompilation, compile problems logged once)
   */
  public static CatalogSnapshot build(long version, Map<String, List<JsonObject>> toolsByServer, CatalogSnapshot previous) {
    return build(version, toolsByServer, Map.of(), previous);
  }

  /**
   * Builds a snapshot with each server's approval policies.
   *
   * @param approvals per server, what its verticle publishes as {@code approval} ({@code
   *     {approval?, tools?: {tool: policy}}}, see {@code McpServerOptions#approvalJson}); a
   *     server without an entry configures none
   * @see #build(long, Map, CatalogSnapshot)
   */
  public static CatalogSnapshot build(long version, Map<String, List<JsonObject>> toolsByServer,
                                      Map<String, JsonObject> approvals, CatalogSnapshot previous) {
    Map<String, List<JsonObject>> sorted = new TreeMap<>(toolsByServer);
    List<ToolNames.Key> keys = new ArrayList<>();
    List<JsonObject> definitions = new ArrayList<>();
    Set<ToolNames.Key> seen = new HashSet<>();
    sorted.forEach((server, tools) -> {
      for (JsonObject def : tools) {
        if (def.getValue("name") instanceof String tool && seen.add(new ToolNames.Key(server, tool))) {
          keys.add(new ToolNames.Key(server, tool));
          definitions.add(def);
        }
      }
    });
    Map<ToolNames.Key, String> names = ToolNames.assign(keys);
    List<CatalogEntry> entries = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      ToolNames.Key key = keys.get(i);
      String name = names.get(key);
      CatalogEntry old = previous == null ? null : previous.byTool.get(key);
      ToolApproval approval = approvalOf(approvals.get(key.server()), key.tool());
      entries.add(old != null && old.definition().equals(definitions.get(i))
        ? old.renamed(name).withApproval(approval) : CatalogEntry.of(name, key.server(), definitions.get(i), approval));
    }
    return new CatalogSnapshot(version, entries);
  }

  /** @return the tool's own policy, else its server's, else {@code null}; words that are no policy count as absent */
  private static ToolApproval approvalOf(JsonObject serverApproval, String tool) {
    if (serverApproval == null) {
      return null;
    }
    ToolApproval own = serverApproval.getValue("tools") instanceof JsonObject tools && tools.getValue(tool) instanceof String w
      ? ToolApproval.find(w) : null;
    return own != null ? own
      : serverApproval.getValue("approval") instanceof String w ? ToolApproval.find(w) : null;
  }

  /** @return the version: increases by one with every rebuild */
  public long version() {
    return version;
  }

  /** @return the entry for a model-side name, or {@code null} */
  public CatalogEntry byName(String name) {
    return byName.get(name);
  }

  /** @return the entry for an MCP tool of a server, or {@code null} */
  public CatalogEntry byTool(String server, String tool) {
    return byTool.get(new ToolNames.Key(server, tool));
  }

  /** @return every entry, servers by name, tools in the server's order */
  public Collection<CatalogEntry> entries() {
    return byName.values();
  }

  /** @return the number of tools */
  public int size() {
    return byName.size();
  }

  /**
   * @return the Anthropic {@code tools} array; shared and not to be modified (a copy is
   *     made whenever it goes over the event bus)
   */
  public JsonArray anthropicTools() {
    return anthropic;
  }

  /** @return the OpenAI {@code tools} array; shared and not to be modified */
  public JsonArray openaiTools() {
    return openai;
  }

  /**
   * @param provider {@code "anthropic"}, {@code "openai"}, or anything else for the
   *     catalog's own form ({@link CatalogEntry#toJson()})
   * @return {@code {version, tools: [...]}}
   */
  public JsonObject toJson(String provider) {
    JsonArray tools;
    Provider p = Provider.find(provider);
    if (p == Provider.ANTHROPIC) {
      tools = anthropic.copy();
    } else if (p == Provider.OPENAI) {
      tools = openai.copy();
    } else {
      tools = new JsonArray();
      byName.values().forEach(e -> tools.add(e.toJson()));
    }
    return new JsonObject().put("version", version).put("tools", tools);
  }
}
