package io.agentbus.mcp;

import io.vertx.core.json.JsonObject;

/**
 * A request a server sent to the client.
 *
 * @param method the JSON-RPC method, e.g. {@code elicitation/create}
 * @param params its params ({@code {}} when absent)
 * @param caller the {@link CallOptions#getCaller() caller} of the tool call the request belongs
 *     to, when the client can tell: over Streamable HTTP the request came on that call's POST
 *     stream, or its {@code _meta} names the call ({@code io.modelcontextprotocol/related-request-id},
 *     or the call's {@code progressToken}); {@code null} otherwise
 */
public record ServerRequest(String method, JsonObject params, Object caller) {
}
