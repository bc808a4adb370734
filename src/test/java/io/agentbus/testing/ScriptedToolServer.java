package io.agentbus.testing;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A scripted stdio MCP server (run as a child JVM) for the dispatcher tests. Tools:
 * <ul>
 *   <li>{@code barrier {expect}}: held until {@code expect} barrier calls are in flight at
 *   once, then all complete with {@code structuredContent {maxInFlight}} and the same as
 *   text (gives up after 20 s and reports the maximum seen);</li>
 *   <li>{@code sleep {ms}}: answers "slept" after ms;</li>
 *   <li>{@code fail}: an {@code isError} result; {@code rpc_error}: a JSON-RPC error -32603;</li>
 *   <li>{@code media}: text, png and svg images, audio, a resource link, an embedded text
 *   resource and a blob resource;</li>
 *   <li>{@code structured {good}}: only {@code structuredContent}, matching its outputSchema
 *   or not;</li>
 *   <li>{@code big {chars}}: a text of that many characters, "HEAD" first and "TAIL" last;</li>
 *   <li>{@code drop {name}}: removes a tool and sends {@code tools/list_changed};</li>
 *   <li>{@code admin.tools.list}: a dotted name with a top-level {@code anyOf} schema;</li>
 *   <li>{@code count {n}}: n must be an integer &gt;= 1 (checked by the client's validation).</li>
 * </ul>
 */
public final class ScriptedToolServer {

  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "scripted-timer");
    t.setDaemon(true);
    return t;
  });
  private static final List<CompletableFuture<JsonObject>> held = new ArrayList<>();
  private static int maxInFlight;
  private static long generation;

  private ScriptedToolServer() {
  }

  public static void main(String[] args) throws Exception {
    Map<String, ServerTool> tools = new LinkedHashMap<>();
    StdioMcpServer server = new StdioMcpServer("scripted", "1.0") {
      @Override
      protected void onMessage(JsonObject msg) {
        if ("tools/call".equals(msg.getString("method"))
          && "rpc_error".equals(msg.getJsonObject("params", new JsonObject()).getString("name"))) {
          error(msg.getValue("id"), -32603, "scripted internal error");
          return;
        }
        super.onMessage(msg);
      }
    };
    add(tools, new ServerTool(tool("barrier", props("expect", "integer")), (a, c) -> barrier(a.getInteger("expect", 1))));
    add(tools, new ServerTool(tool("sleep", props("ms", "integer")), (a, c) -> {
      CompletableFuture<JsonObject> f = new CompletableFuture<>();
      TIMER.schedule(() -> f.complete(ServerTool.text("slept")), a.getLong("ms", 0L), TimeUnit.MILLISECONDS);
      return f;
    }));
    add(tools, new ServerTool(tool("fail", new JsonObject()), (a, c) -> done(ServerTool.error("scripted failure"))));
    add(tools, new ServerTool(tool("rpc_error", new JsonObject()), (a, c) -> done(ServerTool.text("unreachable"))));
    add(tools, new ServerTool(tool("media", new JsonObject()), (a, c) -> done(media())));
    JsonObject structured = tool("structured", props("good", "boolean")).put("outputSchema", new JsonObject()
      .put("type", "object").put("properties", props("count", "integer")).put("required", new JsonArray().add("count")));
    add(tools, new ServerTool(structured, (a, c) -> done(new JsonObject().put("content", new JsonArray())
      .put("structuredContent", a.getBoolean("good", true) ? new JsonObject().put("count", 3) : new JsonObject().put("count", "three")))));
    add(tools, new ServerTool(tool("big", props("chars", "integer")), (a, c) -> {
      int n = a.getInteger("chars", 10);
      return done(ServerTool.text("HEAD" + "x".repeat(Math.max(0, n - 8)) + "TAIL"));
    }));
    add(tools, new ServerTool(tool("admin.tools.list", new JsonObject()).put("inputSchema", new JsonObject()
      .put("anyOf", new JsonArray()
        .add(new JsonObject().put("type", "object").put("properties", props("user", "string")).put("required", new JsonArray().add("user")))
        .add(new JsonObject().put("type", "object").put("properties", props("group", "string"))))),
      (a, c) -> done(ServerTool.text("listed " + a.encode()))));
    add(tools, new ServerTool(tool("count", new JsonObject().put("n", new JsonObject().put("type", "integer").put("minimum", 1)))
      .put("inputSchema", new JsonObject().put("type", "object")
        .put("properties", new JsonObject().put("n", new JsonObject().put("type", "integer").put("minimum", 1)))
        .put("required", new JsonArray().add("n"))),
      (a, c) -> done(ServerTool.text("n=" + a.getValue("n")))));
    add(tools, new ServerTool(tool("drop", props("name", "string")), (a, c) -> {
      tools.remove(a.getString("name"));
      List<ServerTool> rest = new ArrayList<>(tools.values());
      TIMER.execute(() -> server.replaceTools(rest));
      return done(ServerTool.text("dropped " + a.getString("name")));
    }));
    tools.values().forEach(server::tool);
    server.run();
  }

  private static synchronized CompletableFuture<JsonObject> barrier(int expect) {
    CompletableFuture<JsonObject> f = new CompletableFuture<>();
    held.add(f);
    maxInFlight = Math.max(maxInFlight, held.size());
    if (held.size() >= expect) {
      release(generation);
    } else {
      long gen = generation;
      TIMER.schedule(() -> release(gen), 20, TimeUnit.SECONDS);
    }
    return f;
  }

  private static synchronized void release(long gen) {
    if (gen != generation) {
      return;
    }
    generation++;
    JsonObject result = new JsonObject()
      .put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", "maxInFlight=" + maxInFlight)))
      .put("structuredContent", new JsonObject().put("maxInFlight", maxInFlight));
    held.forEach(f -> f.complete(result.copy()));
    held.clear();
    maxInFlight = 0;
  }

  private static JsonObject media() {
    String png = Base64.getEncoder().encodeToString(new byte[] {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3, 4});
    String other = Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4, 5, 6});
    JsonArray content = new JsonArray()
      .add(new JsonObject().put("type", "text").put("text", "here is media"))
      .add(new JsonObject().put("type", "image").put("mimeType", "image/png").put("data", png))
      .add(new JsonObject().put("type", "image").put("mimeType", "image/svg+xml").put("data", other))
      .add(new JsonObject().put("type", "audio").put("mimeType", "audio/wav").put("data", other))
      .add(new JsonObject().put("type", "resource_link").put("uri", "file:///tmp/a.txt").put("name", "a.txt")
        .put("mimeType", "text/plain").put("description", "a file"))
      .add(new JsonObject().put("type", "resource").put("resource", new JsonObject()
        .put("uri", "mem://note").put("mimeType", "text/plain").put("text", "embedded note")))
      .add(new JsonObject().put("type", "resource").put("resource", new JsonObject()
        .put("uri", "mem://blob").put("mimeType", "application/zip").put("blob", other)));
    return new JsonObject().put("content", content);
  }

  private static void add(Map<String, ServerTool> tools, ServerTool tool) {
    tools.put(tool.name(), tool);
  }

  private static CompletableFuture<JsonObject> done(JsonObject result) {
    return CompletableFuture.completedFuture(result);
  }

  private static JsonObject props(String name, String type) {
    return new JsonObject().put(name, new JsonObject().put("type", type));
  }

  private static JsonObject tool(String name, JsonObject properties) {
    return new JsonObject().put("name", name).put("description", "scripted " + name)
      .put("inputSchema", new JsonObject().put("type", "object").put("properties", properties));
  }
}
