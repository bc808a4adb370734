/**
 * The HTTP chat API on vertx-web ({@link io.agentbus.http.HttpApiVerticle}, settings in
 * {@link io.agentbus.http.HttpApiOptions}): bearer-token tenants, bounded turn admission,
 * JSON errors, SSE streaming of turn events, health, metrics and a static chat page. It
 * reaches the conversation service, the catalog and the MCP servers only over the event bus.
 */
package io.agentbus.http;
