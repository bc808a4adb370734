package io.agentbus.mcpserver;

import io.vertx.core.json.JsonObject;

/** What a {@link ServerTool.Handler} knows about the call it serves. */
public final class ToolCall {

  private final StdioMcpServer server;
  private final Object requestId;
  private final Object progressToken;
  private volatile boolean cancelled;

  ToolCall(StdioMcpServer server, Object requestId, Object progressToken) {
    this.server = server;
    this.requestId = requestId;
    this.progressToken = progressToken;
  }

  /** @return the JSON-RPC id of the {@code tools/call} request */
  public Object requestId() {
    return requestId;
  }

  /** @return whether the client sent {@code notifications/cancelled} for this call */
  public boolean isCancelled() {
    return cancelled;
  }

  void cancel() {
    cancelled = true;
  }

  /** Sends {@code notifications/progress} if the client asked for progress. */
  public void progress(double progress, Double total, String message) {
    if (progressToken == null) {
      return;
    }
    JsonObject params = new JsonObject().put("progressToken", progressToken).put("progress", progress);
    if (total != null) {
      params.put("total", total);
    }
    if (message != null) {
      params.put("message", message);
    }
    server.notify("notifications/progress", params);
  }
}
