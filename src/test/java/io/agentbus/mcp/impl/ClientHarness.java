package io.agentbus.mcp.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.ScriptedTransport;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * One {@link McpClient} over a {@link ScriptedTransport}, both bound to one event-loop
 * context, with blocking helpers for the test thread and a record of every handler call.
 */
final class ClientHarness {

  static final long WAIT_SECONDS = 10;
  private static final AtomicInteger SERVERS = new AtomicInteger();

  final Vertx vertx;
  final Context context;
  final String name;
  final ScriptedTransport transport;
  final McpClient client;
  final List<Throwable> closeHandlerCalls = new CopyOnWriteArrayList<>();
  final List<List<JsonObject>> toolsChangedCalls = new CopyOnWriteArrayList<>();
  private final List<CompletableFuture<List<JsonObject>>> toolsChangedWaiters = new ArrayList<>();

  ClientHarness(Vertx vertx, McpServerOptions options) {
    this.vertx = vertx;
    this.name = options.getName();
    this.context = vertx.getOrCreateContext();
    this.transport = new ScriptedTransport(context);
    this.client = onContext(() -> McpClient.create(vertx, options, transport)
      .closeHandler(closeHandlerCalls::add)
      .toolsChangedHandler(this::onToolsChanged));
  }

  private synchronized void onToolsChanged(List<JsonObject> tools) {
    toolsChangedCalls.add(tools);
    int n = toolsChangedCalls.size();
    if (n <= toolsChangedWaiters.size()) {
      toolsChangedWaiters.get(n - 1).complete(tools);
    }
  }

  /** Completes with the list passed to the {@code nth} (1-based) call of the tools-changed handler. */
  synchronized CompletableFuture<List<JsonObject>> toolsChanged(int nth) {
    while (toolsChangedWaiters.size() < nth) {
      toolsChangedWaiters.add(new CompletableFuture<>());
    }
    CompletableFuture<List<JsonObject>> f = toolsChangedWaiters.get(nth - 1);
    if (toolsChangedCalls.size() >= nth) {
      f.complete(toolsChangedCalls.get(nth - 1));
    }
    return f;
  }

  ClientHarness(Vertx vertx) {
    this(vertx, options());
  }

  /** Options with a server name unique to this JVM, so log lines can be told apart. */
  static McpServerOptions options() {
    return new McpServerOptions().setName("scripted-" + SERVERS.incrementAndGet());
  }

  static JsonObject initializeResult(boolean tools) {
    JsonObject caps = tools ? new JsonObject().put("tools", new JsonObject().put("listChanged", true)) : new JsonObject();
    return new JsonObject().put("protocolVersion", "2025-11-25").put("capabilities", caps)
      .put("serverInfo", new JsonObject().put("name", "scripted").put("version", "1"));
  }

  static JsonObject tool(String name) {
    return new JsonObject().put("name", name).put("inputSchema", new JsonObject().put("type", "object"));
  }

  static JsonObject page(String nextCursor, String... names) {
    JsonArray tools = new JsonArray();
    for (String n : names) {
      tools.add(tool(n));
    }
    JsonObject page = new JsonObject().put("tools", tools);
    return nextCursor == null ? page : page.put("nextCursor", nextCursor);
  }

  static List<String> names(List<JsonObject> tools) {
    return tools.stream().map(t -> t.getString("name")).toList();
  }

  /** Connects with a server that answers initialize and lists {@code tools} in one page. */
  JsonObject connectReady(String... tools) {
    transport.respondTo("initialize", req -> initializeResult(true));
    transport.respondTo("tools/list", req -> page(null, tools));
    JsonObject init = await(client.connect());
    transport.respondTo("tools/list", null);
    return init;
  }

  /** Runs {@code action} on the client's context and returns its value. */
  <T> T onContext(Supplier<T> action) {
    CompletableFuture<T> result = new CompletableFuture<>();
    context.runOnContext(v -> {
      try {
        result.complete(action.get());
      } catch (Throwable t) {
        result.completeExceptionally(t);
      }
    });
    return get(result);
  }

  /** Requests still waiting for a response, read on the context. */
  int pendingRequests() {
    return onContext(() -> ((McpClientImpl) client).pendingRequests());
  }

  static <T> T await(Future<T> future) {
    return get(future.toCompletionStage().toCompletableFuture());
  }

  /** Waits for {@code future} to fail and returns the cause, an {@link McpException} of {@code kind}. */
  static McpException awaitFailure(Future<?> future, McpException.Kind kind) {
    CompletableFuture<?> f = future.toCompletionStage().toCompletableFuture();
    try {
      Object value = f.get(WAIT_SECONDS, TimeUnit.SECONDS);
      return fail("expected a failure of kind " + kind + " but got " + value);
    } catch (ExecutionException e) {
      McpException mcp = assertInstanceOf(McpException.class, e.getCause(), "cause: " + e.getCause());
      assertEquals(kind, mcp.kind(), mcp.getMessage());
      return mcp;
    } catch (TimeoutException e) {
      return fail("still pending after " + WAIT_SECONDS + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  static <T> T get(CompletableFuture<T> future) {
    try {
      return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("still pending after " + WAIT_SECONDS + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** @return whether the future is still pending (it may complete later) */
  static boolean pending(CompletableFuture<?> f) {
    return !f.isDone();
  }

  /** @return a CallToolResult holding one text block */
  static JsonObject text(String s) {
    return new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", s)));
  }

  /** @return the text of a CallToolResult's first block */
  static String textOf(JsonObject result) {
    return result.getJsonArray("content").getJsonObject(0).getString("text");
  }
}
