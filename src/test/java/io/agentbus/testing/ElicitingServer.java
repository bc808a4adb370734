package io.agentbus.testing;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stdio MCP server (run as a child JVM) that sends requests to its client. Tools:
 * <ul>
 *   <li>{@code ask}: {@code elicitation/create} during the call, with {@link #SCHEMA} (a required
 *   {@code name} of 2+ characters, an {@code age} 0-150 defaulting to 30, a {@code color}
 *   enum defaulting to "red"); the result text is the client's answer as JSON;</li>
 *   <li>{@code roots}: {@code roots/list} during the call; the result text is the answer as JSON;</li>
 *   <li>{@code sample {prompt}}: {@code sampling/createMessage} during the call; the text is the
 *   answer (or the error) as JSON;</li>
 *   <li>{@code ask_outside}: answers at once, then sends an {@code elicitation/create} after the
 *   call is over; {@code outside_answer} returns what the client answered to it (waits up to 10 s);</li>
 *   <li>{@code client_info}: the client's initialize capabilities and how many
 *   {@code notifications/roots/list_changed} arrived.</li>
 * </ul>
 */
public final class ElicitingServer {

  /** The schema {@code ask} sends. */
  public static final JsonObject SCHEMA = new JsonObject().put("type", "object")
    .put("properties", new JsonObject()
      .put("name", new JsonObject().put("type", "string").put("title", "Your name").put("minLength", 2))
      .put("age", new JsonObject().put("type", "integer").put("minimum", 0).put("maximum", 150).put("default", 30))
      .put("color", new JsonObject().put("type", "string").put("enum", new JsonArray().add("red").add("green")).put("default", "red")))
    .put("required", new JsonArray().add("name"));

  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "eliciting-timer");
    t.setDaemon(true);
    return t;
  });
  private static final Map<String, CompletableFuture<JsonObject>> waiting = new ConcurrentHashMap<>();
  private static final AtomicInteger ids = new AtomicInteger();
  private static final AtomicInteger rootsChanged = new AtomicInteger();
  private static final AtomicReference<JsonObject> capabilities = new AtomicReference<>(new JsonObject());
  private static final CompletableFuture<JsonObject> outside = new CompletableFuture<>();
  private static StdioMcpServer server;

  private ElicitingServer() {
  }

  public static void main(String[] args) throws Exception {
    server = new StdioMcpServer("eliciting", "1.0") {
      @Override
      protected void onMessage(JsonObject msg) {
        String method = msg.getString("method");
        if (method == null && msg.getValue("id") instanceof String id) {
          CompletableFuture<JsonObject> f = waiting.remove(id);
          if (f != null) {
            f.complete(msg);
          }
          return;
        }
        if ("initialize".equals(method)) {
          capabilities.set(msg.getJsonObject("params", new JsonObject()).getJsonObject("capabilities", new JsonObject()));
        }
        if ("notifications/roots/list_changed".equals(method)) {
          rootsChanged.incrementAndGet();
        }
        super.onMessage(msg);
      }
    };
    server.tool(new ServerTool(tool("ask", new JsonObject()), (a, c) -> request("elicitation/create", new JsonObject()
      .put("message", "Who are you?").put("requestedSchema", SCHEMA)).thenApply(r -> ServerTool.text(r.encode()))));
    server.tool(new ServerTool(tool("roots", new JsonObject()), (a, c) -> request("roots/list", null)
      .thenApply(r -> ServerTool.text(r.encode()))));
    server.tool(new ServerTool(tool("sample", new JsonObject().put("prompt", new JsonObject().put("type", "string"))),
      (a, c) -> request("sampling/createMessage", new JsonObject().put("maxTokens", 50).put("messages", new JsonArray()
        .add(new JsonObject().put("role", "user").put("content", new JsonObject().put("type", "text")
          .put("text", a.getString("prompt", "hi")))))).thenApply(r -> ServerTool.text(r.encode()))));
    server.tool(new ServerTool(tool("ask_outside", new JsonObject()), (a, c) -> {
      CompletableFuture<JsonObject> answered = new CompletableFuture<>();
      // the call's response is written (by complete) before the elicitation: the call is over when it arrives
      TIMER.schedule(() -> {
        answered.complete(ServerTool.text("asked later"));
        request("elicitation/create", new JsonObject().put("message", "Anyone there?").put("requestedSchema", SCHEMA))
          .thenAccept(outside::complete);
      }, 10, TimeUnit.MILLISECONDS);
      return answered;
    }));
    server.tool(new ServerTool(tool("outside_answer", new JsonObject()), (a, c) ->
      outside.completeOnTimeout(new JsonObject().put("none", true), 10, TimeUnit.SECONDS).thenApply(r -> ServerTool.text(r.encode()))));
    server.tool(new ServerTool(tool("client_info", new JsonObject()), (a, c) -> CompletableFuture.completedFuture(ServerTool.text(
      new JsonObject().put("capabilities", capabilities.get()).put("rootsChanged", rootsChanged.get()).encode()))));
    server.run();
  }

  /** Sends a request to the client; completes with its whole response ({@code result} or {@code error}). */
  private static CompletableFuture<JsonObject> request(String method, JsonObject params) {
    String id = "srv-" + ids.incrementAndGet();
    CompletableFuture<JsonObject> f = new CompletableFuture<>();
    waiting.put(id, f);
    JsonObject msg = new JsonObject().put("jsonrpc", "2.0").put("id", id).put("method", method);
    if (params != null) {
      msg.put("params", params);
    }
    server.send(msg);
    return f.thenApply(r -> {
      JsonObject out = new JsonObject();
      if (r.containsKey("result")) {
        out.put("result", r.getValue("result"));
      }
      if (r.containsKey("error")) {
        out.put("error", r.getValue("error"));
      }
      return out;
    });
  }

  private static JsonObject tool(String name, JsonObject properties) {
    return new JsonObject().put("name", name).put("description", name)
      .put("inputSchema", new JsonObject().put("type", "object").put("properties", properties));
  }
}
