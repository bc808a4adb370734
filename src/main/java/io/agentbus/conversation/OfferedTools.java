package io.agentbus.conversation;

import io.vertx.core.json.JsonArray;
import java.util.HashMap;
import java.util.Map;

/**
 * The tools a turn offers the model, as one array per (catalog snapshot, selection) that never
 * changes: every conversation with the same selection gets the same array while the catalog
 * stays as it is, so the model client may encode it once ({@code ModelRequest#setToolsShared}).
 * Selections are made again when the catalog's tools change. Bounded; confined to the turn
 * runner's context.
 */
final class OfferedTools {

  /** The most distinct selections kept per snapshot; past it a selection is made on each call, unshared. */
  static final int MAX_SELECTIONS = 1024;

  /**
   * @param tools what the turn offers
   * @param shared whether {@code tools} is kept as it is (the catalog's array, or one kept here)
   */
  record Offer(JsonArray tools, boolean shared) {
  }

  private final Map<ToolSelection, JsonArray> selections = new HashMap<>();
  private JsonArray selectedFrom;

  /**
   * @param selection the conversation's selection
   * @param catalogTools the turn's snapshot's tools (shared, never modified)
   * @return what the selection offers of them
   */
  Offer offered(ToolSelection selection, JsonArray catalogTools) {
    if (selection.all()) {
      return new Offer(catalogTools, true);
    }
    if (catalogTools != selectedFrom) {
      selections.clear();
      selectedFrom = catalogTools;
    }
    JsonArray offered = selections.get(selection);
    if (offered != null) {
      return new Offer(offered, true);
    }
    offered = selection.select(catalogTools);
    if (selections.size() >= MAX_SELECTIONS) {
      return new Offer(offered, false);
    }
    selections.put(selection, offered);
    return new Offer(offered, true);
  }
}
