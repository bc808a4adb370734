/**
 * The dispatcher: one assistant turn's tool_use blocks in, one user message of tool_result
 * blocks out.
 *
 * <p>Address {@code agentbus.dispatch}, header {@code action: dispatch}:
 * <pre>{@code
 * request {"provider": "anthropic" | "openai",
 *          "catalogVersion"?: 7,            // CatalogSnapshot.version() the model request used
 *          "content": [ assistant content blocks, verbatim: text, thinking, tool_use... ],
 *          "timeoutMs"?: 30000,             // MCP timeout per call, restarted by progress (default: DispatcherOptions, else the server's)
 *          "budgetMs"?: 120000,             // the most each call may take in all, queueing and progress included
 *                                           // (default: fallbackSendTimeoutMs - sendTimeoutMarginMs); 0: nothing runs
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
 *         {"type": "tool_call_progress", "tool_use_id", "name", "server", "tool", "progress", "total"?, "message"?}
 *                                           (published by the server verticle, at most one per call every 200 ms)
 *         {"type": "tool_call_finished", "tool_use_id", "name", "is_error", "duration_ms"}
 * }</pre>
 * One deadline per call: each tools/call carries {@code budgetMs} and the bus waits
 * {@code budgetMs + sendTimeoutMarginMs}, while the server verticle bounds the call by
 * {@code min(budgetMs, maxTotalTimeoutMs)}: the innermost layer always fails first and says
 * why. A failed call's text says whether the tool ran: "The tool was not run (...)" when it
 * never reached the server; "timed out after N ms; the server may still complete it — check
 * before retrying a call that changes something" when it was sent; results of calls that
 * succeeded are never replaced.
 * A tool_use from the OpenAI client whose arguments were not valid JSON carries
 * {@code "_invalid_arguments": "<raw>"}; it is answered with {@code is_error} and not run.
 * For {@code openai} every result block is text (tool messages carry no images); the OpenAI
 * client turns each tool_result into a {@code role: "tool"} message and prefixes errors.
 */
package io.agentbus.dispatch;
