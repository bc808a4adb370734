package io.agentbus.catalog;

import io.agentbus.mcp.ToolApproval;
import io.vertx.core.json.JsonObject;

/**
 * One tool of a {@link CatalogSnapshot}. Treat the JSON members as read-only: they are
 * shared by every reader of the snapshot.
 *
 * @param name the model-side name ({@code mcp__<server>__<tool>}, see {@link ToolNames})
 * @param server the configured MCP server name
 * @param tool the original MCP tool name
 * @param description the tool's description ({@code ""} when it has none)
 * @param inputSchema the {@code inputSchema} as the server sent it (used for validation)
 * @param cleanedSchema the provider-safe schema sent to models (see {@link SchemaCleaner})
 * @param outputSchema the {@code outputSchema}, or {@code null}
 * @param definition the raw MCP {@code Tool} object
 * @param input the compiled input schema
 * @param output the compiled output schema, or {@code null} without an outputSchema
 * @param approval the approval policy configured for this tool or its server, or {@code null}
 *     when neither sets one (the caller's default applies: see {@link #asksApproval})
 * @param destructive whether the tool counts as destructive by its annotations ({@link ToolApproval#destructive})
 */
public record CatalogEntry(String name, String server, String tool, String description,
                           JsonObject inputSchema, JsonObject cleanedSchema, JsonObject outputSchema,
                           JsonObject definition, SchemaCheck input, SchemaCheck output,
                           ToolApproval approval, boolean destructive) {

  /** Builds an entry from a raw MCP tool definition, compiling its schemas; no approval policy of its own. */
  public static CatalogEntry of(String name, String server, JsonObject definition) {
    return of(name, server, definition, null);
  }

  /**
   * Builds an entry from a raw MCP tool definition, compiling its schemas.
   *
   * @param approval the policy configured for the tool or its server, or {@code null}
   */
  public static CatalogEntry of(String name, String server, JsonObject definition, ToolApproval approval) {
    String tool = definition.getString("name");
    JsonObject inputSchema = definition.getValue("inputSchema") instanceof JsonObject s ? s : new JsonObject();
    JsonObject outputSchema = definition.getValue("outputSchema") instanceof JsonObject s ? s : null;
    String description = definition.getValue("description") instanceof String d ? d : "";
    String label = server + "/" + tool;
    return new CatalogEntry(name, server, tool, description, inputSchema, SchemaCleaner.clean(inputSchema),
      outputSchema, definition, SchemaCheck.compile(label + " inputSchema", inputSchema),
      outputSchema == null ? null : SchemaCheck.compile(label + " outputSchema", outputSchema),
      approval, ToolApproval.destructive(definition));
  }

  /**
   * @param fallback the policy when neither the tool nor its server configures one
   * @return whether a call of this tool waits for approval
   */
  public boolean asksApproval(ToolApproval fallback) {
    return (approval != null ? approval : fallback).asks(destructive);
  }

  /** @return the same compiled tool under another approval policy */
  CatalogEntry withApproval(ToolApproval newApproval) {
    return newApproval == approval ? this
      : new CatalogEntry(name, server, tool, description, inputSchema, cleanedSchema, outputSchema, definition, input, output,
        newApproval, destructive);
  }

  /** @return the same compiled tool under another model-side name */
  CatalogEntry renamed(String newName) {
    return newName.equals(name) ? this
      : new CatalogEntry(newName, server, tool, description, inputSchema, cleanedSchema, outputSchema, definition, input, output,
        approval, destructive);
  }

  /** @return the Anthropic tool definition {@code {name, description, input_schema}} */
  public JsonObject anthropic() {
    return new JsonObject().put("name", name).put("description", description).put("input_schema", cleanedSchema);
  }

  /** @return the OpenAI tool {@code {type:"function", function:{name, description, parameters}}} */
  public JsonObject openai() {
    return new JsonObject().put("type", "function").put("function", new JsonObject()
      .put("name", name).put("description", description).put("parameters", cleanedSchema));
  }

  /** @return a summary for status and listing APIs */
  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("name", name).put("server", server).put("tool", tool)
      .put("description", description).put("inputSchema", inputSchema)
      .put("validated", input.usable());
    if (outputSchema != null) {
      json.put("outputSchema", outputSchema);
    }
    return json;
  }
}
