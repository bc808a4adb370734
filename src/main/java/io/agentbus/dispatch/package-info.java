/**
 * The dispatcher: one assistant turn's tool_use blocks in, one user message of tool_result
 * blocks out.
 *
 * <p>Address {@code agentbus.dispatch}, header {@code action: dispatch}:
 * <pre>{@code
 * request {"provider": "anthropic" | "openai",
 *          "catalogVersion"?: 7,            // CatalogSnapshot.version() the model request used
 *          "content": [ assistant content blocks, verbatim: text, thinking, tool_use... ],
 *          "timeoutMs"?: 30000,             // MCP timeout per call (default: DispatcherOptions, else the server's)
 *          "eventsAddress"?: "...",         // per-call events are published there
 *          "eventFields"?: {...}}           // copied into every per-call event
 * reply   {"role": "user", "content": [
 *            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
 *             "content": [{"type": "text", "text": "..."},
 *                         {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "..."}}]},
 *            ... one per tool_use, same order ...]}
 * failures 400: no provider, content not an array, no tool_use, a tool_use without id,
 *          duplicate ids (nothing is run); 404 unknown action
 * events  {"type": "tool_call_started",  "tool_use_id", "name", "server"?, "tool"?}
 *         {"type": "tool_call_finished", "tool_use_id", "name", "is_error", "duration_ms"}
 * }</pre>
 * A tool_use from the OpenAI client whose arguments were not valid JSON carries
 * {@code "_invalid_arguments": "<raw>"}; it is answered with {@code is_error} and not run.
 * For {@code openai} every result block is text (tool messages carry no images); the OpenAI
 * client turns each tool_result into a {@code role: "tool"} message and prefixes errors.
 */
package io.agentbus.dispatch;
