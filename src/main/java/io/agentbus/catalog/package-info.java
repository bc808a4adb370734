/**
 * The tool catalog: every MCP server's tools under model-side names, as immutable versioned
 * snapshots.
 *
 * <p>In process, {@link io.agentbus.catalog.ToolCatalog} (one per Vert.x instance via
 * {@code ToolCatalog.shared(vertx)}, or passed to the verticles) gives the current
 * {@link io.agentbus.catalog.CatalogSnapshot} with one volatile read, and the last 16
 * versions by number. A conversation takes {@code current()} once per model request, sends
 * {@code snapshot.anthropicTools()} or {@code openaiTools()}, and passes
 * {@code snapshot.version()} to the dispatcher with the assistant turn.
 *
 * <p>On the bus, address {@code agentbus.catalog}, header {@code action: get}:
 * <pre>{@code
 * request  {"provider"?: "anthropic" | "openai", "version"?: 7}
 * reply    {"version": 7, "tools": [ ...projection... ]}
 *   anthropic: {"name", "description", "input_schema"}
 *   openai:    {"type": "function", "function": {"name", "description", "parameters"}}
 *   absent:    {"name", "server", "tool", "description", "inputSchema", "outputSchema"?, "validated"}
 * failures  400 bad provider, 404 unknown action or a version no longer retained
 * }</pre>
 * Published after every rebuild on {@code agentbus.events.catalog.changed}:
 * {@code {"version": 8, "tools": ["mcp__everything__echo", ...]}}.
 */
package io.agentbus.catalog;
