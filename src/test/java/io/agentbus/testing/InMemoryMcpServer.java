package io.agentbus.testing;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.transport.McpTransport;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A scriptable MCP server inside the test JVM, reached through an in-memory
 * {@link McpTransport} (no child process, no socket): give {@link #transports()} to
 * {@code new McpServerVerticle(transports, stableAfterMs)}. It answers {@code initialize} and
 * {@code tools/list}; each {@code tools/call} goes to the handler registered for the tool
 * ({@link #tool}), which answers through its {@link Call} whenever it likes, sending progress
 * first if it wants. Every message the client sent is kept in {@link #received}. Messages to
 * the client are delivered on the transport's context, never re-entrantly.
 */
public final class InMemoryMcpServer {

  /** One {@code tools/call} as the server sees it. */
  public final class Call {
    private final Link link;
    /** The request's params (name, arguments, _meta). */
    public final JsonObject params;
    private final Object id;

    private Call(Link link, JsonObject request) {
      this.link = link;
      this.id = request.getValue("id");
      this.params = request.getJsonObject("params", new JsonObject());
    }

    /** @return the request's {@code _meta.progressToken}, or {@code null} */
    public Object progressToken() {
      return params.getJsonObject("_meta", new JsonObject()).getValue("progressToken");
    }

    /** Sends {@code notifications/progress} for this call (a no-op without a progress token). */
    public void progress(double progress, Double total, String message) {
      Object token = progressToken();
      if (token == null) {
        return;
      }
      JsonObject p = new JsonObject().put("progressToken", token).put("progress", progress);
      if (total != null) {
        p.put("total", total);
      }
      if (message != null) {
        p.put("message", message);
      }
      link.deliver(new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/progress").put("params", p));
    }

    /** Answers with a text result. */
    public void text(String text) {
      result(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", text))));
    }

    public void result(JsonObject result) {
      link.deliver(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result));
    }
  }

  /** One connection (transport) of the client. */
  private final class Link implements McpTransport {
    private final Vertx vertx;
    private final Context context;
    private Handler<JsonObject> handler;
    private Handler<Throwable> closeHandler;
    private boolean closed;

    Link(Vertx vertx, Context context) {
      this.vertx = vertx;
      this.context = context;
    }

    void deliver(JsonObject msg) {
      context.runOnContext(v -> {
        if (!closed && handler != null) {
          handler.handle(msg);
        }
      });
    }

    @Override
    public Future<Void> start(Handler<JsonObject> messageHandler) {
      starts.incrementAndGet();
      if (failStarts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        closed = true;
        return Future.failedFuture(new McpException(McpException.Kind.TRANSPORT, "cannot start server '" + name + "' (scripted)"));
      }
      this.handler = messageHandler;
      current = this;
      return Future.succeededFuture();
    }

    @Override
    public Future<Void> send(JsonObject message) {
      if (closed) {
        return Future.failedFuture(new McpException(McpException.Kind.CONNECTION_CLOSED, "closed"));
      }
      received.add(message.copy());
      String method = message.getString("method");
      Object id = message.getValue("id");
      if (method == null || id == null) {
        return Future.succeededFuture(); // a notification or a response
      }
      switch (method) {
        case "initialize" -> deliver(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", new JsonObject()
          .put("protocolVersion", "2025-11-25")
          .put("capabilities", new JsonObject().put("tools", new JsonObject()))
          .put("serverInfo", new JsonObject().put("name", "in-memory").put("version", "1"))));
        case "tools/list" -> {
          JsonArray list = new JsonArray();
          tools.keySet().stream().sorted().forEach(n -> list.add(new JsonObject().put("name", n)
            .put("inputSchema", new JsonObject().put("type", "object"))));
          deliver(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", new JsonObject().put("tools", list)));
        }
        case "tools/call" -> {
          Call call = new Call(this, message);
          BiConsumer<Vertx, Call> tool = tools.get(call.params.getString("name"));
          if (tool == null) {
            deliver(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("error", new JsonObject()
              .put("code", -32602).put("message", "Unknown tool")));
          } else {
            context.runOnContext(v -> tool.accept(vertx, call));
          }
        }
        default -> deliver(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", new JsonObject()));
      }
      return Future.succeededFuture();
    }

    @Override
    public McpTransport closeHandler(Handler<Throwable> handler) {
      this.closeHandler = handler;
      return this;
    }

    @Override
    public Future<Void> close() {
      closed = true;
      return Future.succeededFuture();
    }

    @Override
    public JsonObject describe() {
      return new JsonObject().put("transport", "in-memory");
    }

    void crash(String why) {
      context.runOnContext(v -> {
        if (!closed) {
          closed = true;
          if (closeHandler != null) {
            closeHandler.handle(new McpException(McpException.Kind.CONNECTION_CLOSED, why));
          }
        }
      });
    }
  }

  private final String name;
  private final Map<String, BiConsumer<Vertx, Call>> tools = new ConcurrentHashMap<>();
  /** Every message the client sent, over all connections. */
  public final List<JsonObject> received = new CopyOnWriteArrayList<>();
  /** The next this many connection attempts fail. */
  public final AtomicInteger failStarts = new AtomicInteger();
  /** Connection attempts so far. */
  public final AtomicInteger starts = new AtomicInteger();
  private volatile Link current;

  public InMemoryMcpServer(String name) {
    this.name = name;
    tool("echo", (vertx, call) -> call.text("Echo: " + call.params.getJsonObject("arguments", new JsonObject()).getString("message")));
  }

  /** Adds (or replaces) a tool; the handler runs on the client's context and answers through the call. */
  public InMemoryMcpServer tool(String toolName, BiConsumer<Vertx, Call> handler) {
    tools.put(toolName, handler);
    return this;
  }

  /** @return the transport factory for {@code new McpServerVerticle(transports, stableAfterMs)} */
  public Function<McpServerOptions, McpTransport> transports() {
    return options -> {
      Vertx vertx = io.vertx.core.Vertx.currentContext().owner();
      return new Link(vertx, io.vertx.core.Vertx.currentContext());
    };
  }

  /** The live connection ends as if the process died (the client's close handler fires). */
  public void crash() {
    Link link = current;
    if (link != null) {
      link.crash("server '" + name + "' exited (code 137)");
    }
  }

  /** @return the messages the client sent with that method */
  public List<JsonObject> received(String method) {
    return received.stream().filter(m -> method.equals(m.getString("method"))).toList();
  }
}
