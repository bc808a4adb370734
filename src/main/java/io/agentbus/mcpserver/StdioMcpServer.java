package io.agentbus.mcpserver;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A small MCP server over stdio, for programs that run as a child process of an MCP host:
 * the demo server shipped in the jar, the benchmark server and the test fakes. It answers
 * {@code initialize}, {@code ping}, {@code tools/list} (optionally paged) and
 * {@code tools/call}; calls may complete later and run concurrently. This runs in its own
 * process with plain threads; it is not part of the Vert.x runtime.
 */
public class StdioMcpServer {

  public static final List<String> VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");

  private final String name;
  private final String version;
  private final Map<String, ServerTool> tools = new LinkedHashMap<>();
  private final Map<String, ToolCall> running = new ConcurrentHashMap<>();
  private final Map<String, Function<JsonObject, JsonObject>> methods = new ConcurrentHashMap<>();
  private final PrintStream out;
  private int pageSize = Integer.MAX_VALUE;
  private String instructions;

  public StdioMcpServer(String name, String version) {
    this.name = name;
    this.version = version;
    // Our stdout carries only JSON-RPC: keep a private handle and send System.out to stderr.
    this.out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    System.setOut(System.err);
  }

  /** Adds a tool. */
  public StdioMcpServer tool(ServerTool tool) {
    tools.put(tool.name(), tool);
    return this;
  }

  /** Serves {@code tools/list} in pages of this size (tests of {@code nextCursor}). */
  public StdioMcpServer pageSize(int pageSize) {
    this.pageSize = pageSize;
    return this;
  }

  /** Sets the {@code instructions} returned by {@code initialize}. */
  public StdioMcpServer instructions(String instructions) {
    this.instructions = instructions;
    return this;
  }

  /** Adds a handler for another request method (result computed synchronously). */
  public StdioMcpServer method(String method, Function<JsonObject, JsonObject> handler) {
    methods.put(method, handler);
    return this;
  }

  /** Replaces the tool list and tells the client ({@code notifications/tools/list_changed}). */
  public synchronized void replaceTools(List<ServerTool> newTools) {
    tools.clear();
    newTools.forEach(t -> tools.put(t.name(), t));
    notify("notifications/tools/list_changed", null);
  }

  /** Reads stdin until it closes, then returns. */
  public void run() throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      JsonObject msg;
      try {
        msg = new JsonObject(line);
      } catch (DecodeException | ClassCastException e) {
        send(new JsonObject().put("jsonrpc", "2.0").put("id", (Object) null)
          .put("error", new JsonObject().put("code", -32700).put("message", "Parse error")));
        continue;
      }
      onMessage(msg);
    }
  }

  /** Handles one inbound message; subclasses may intercept. */
  protected void onMessage(JsonObject msg) {
    String method = msg.getString("method");
    Object id = msg.getValue("id");
    if (method == null) {
      return;
    }
    if (id == null) {
      onNotification(method, msg.getJsonObject("params", new JsonObject()));
      return;
    }
    JsonObject params = msg.getJsonObject("params", new JsonObject());
    switch (method) {
      case "initialize" -> respond(id, initialize(params));
      case "ping" -> respond(id, new JsonObject());
      case "tools/list" -> listTools(id, params);
      case "tools/call" -> callTool(id, params);
      default -> {
        Function<JsonObject, JsonObject> handler = methods.get(method);
        if (handler != null) {
          respond(id, handler.apply(params));
        } else {
          error(id, -32601, "Method not found: " + method);
        }
      }
    }
  }

  /** Handles a notification; {@code notifications/cancelled} flags the running call. */
  protected void onNotification(String method, JsonObject params) {
    if ("notifications/cancelled".equals(method)) {
      ToolCall call = running.get(String.valueOf(params.getValue("requestId")));
      if (call != null) {
        call.cancel();
      }
    }
  }

  private JsonObject initialize(JsonObject params) {
    String requested = params.getString("protocolVersion", VERSIONS.get(0));
    JsonObject result = new JsonObject()
      .put("protocolVersion", VERSIONS.contains(requested) ? requested : VERSIONS.get(0))
      .put("capabilities", new JsonObject().put("tools", new JsonObject().put("listChanged", true)))
      .put("serverInfo", new JsonObject().put("name", name).put("version", version));
    if (instructions != null) {
      result.put("instructions", instructions);
    }
    return result;
  }

  private synchronized void listTools(Object id, JsonObject params) {
    List<ServerTool> all = new ArrayList<>(tools.values());
    int start = 0;
    if (params.getValue("cursor") instanceof String c) {
      try {
        start = Integer.parseInt(c);
      } catch (NumberFormatException e) {
        error(id, -32602, "Invalid cursor");
        return;
      }
    }
    int end = (int) Math.min((long) start + pageSize, all.size());
    JsonArray page = new JsonArray();
    for (int i = start; i < end; i++) {
      page.add(all.get(i).definition());
    }
    JsonObject result = new JsonObject().put("tools", page);
    if (end < all.size()) {
      result.put("nextCursor", String.valueOf(end));
    }
    respond(id, result);
  }

  private void callTool(Object id, JsonObject params) {
    ServerTool tool;
    synchronized (this) {
      tool = tools.get(params.getString("name"));
    }
    if (tool == null) {
      respond(id, ServerTool.error("Tool " + params.getString("name") + " not found"));
      return;
    }
    Object token = params.getJsonObject("_meta", new JsonObject()).getValue("progressToken");
    ToolCall call = new ToolCall(this, id, token);
    String key = String.valueOf(id);
    running.put(key, call);
    CompletionStage<JsonObject> result;
    try {
      result = tool.handler().call(params.getJsonObject("arguments", new JsonObject()), call);
    } catch (RuntimeException e) {
      running.remove(key);
      respond(id, ServerTool.error(e.toString()));
      return;
    }
    result.whenComplete((r, err) -> {
      running.remove(key);
      if (call.isCancelled()) {
        return;
      }
      respond(id, err != null ? ServerTool.error(String.valueOf(err.getMessage())) : r);
    });
  }

  /** Sends a result. */
  public void respond(Object id, JsonObject result) {
    send(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result));
  }

  /** Sends a JSON-RPC error. */
  public void error(Object id, int code, String message) {
    send(new JsonObject().put("jsonrpc", "2.0").put("id", id)
      .put("error", new JsonObject().put("code", code).put("message", message)));
  }

  /** Sends a notification. */
  public void notify(String method, JsonObject params) {
    JsonObject msg = new JsonObject().put("jsonrpc", "2.0").put("method", method);
    if (params != null) {
      msg.put("params", params);
    }
    send(msg);
  }

  /** Writes one message as one line. */
  public synchronized void send(JsonObject msg) {
    writeRaw(msg.encode());
  }

  /** Writes one raw line (fault injection). */
  public synchronized void writeRaw(String line) {
    out.print(line);
    out.print('\n');
    out.flush();
  }

  /** @return the raw stdout, for fault injection that needs bytes */
  protected OutputStream stdout() {
    return out;
  }
}
