package io.agentbus.mcp.transport.stdio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The stdio transport against real child processes: flush on close, bounded close, exit reports, a closed Vert.x. */
@Integration
@ExtendWith(VertxExtension.class)
class StdioTransportTest {

  private static final int MESSAGES = 2_000;

  private static McpServerOptions child(String name, String... args) {
    return InteropServers.javaMain(name, StdioChild.class, args);
  }

  private static JsonObject message(int i) {
    return new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/test")
      .put("params", new JsonObject().put("i", i).put("pad", "x".repeat(500)));
  }

  @Test
  void aGracefulCloseFlushesWhatWasSentBeforeIt(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) {
    Path file = dir.resolve("received.jsonl");
    Context context = vertx.getOrCreateContext();
    context.runOnContext(v -> {
      StdioTransport transport = new StdioTransport(vertx, context, child("record", "record", file.toString()));
      assertEquals(StdioTransport.Status.NEW, transport.status());
      transport.start(msg -> { }).compose(started -> {
        assertEquals(StdioTransport.Status.RUNNING, transport.status());
        for (int i = 0; i < MESSAGES; i++) {
          transport.send(message(i));
        }
        // In the same tick: nearly everything is still queued for the writer thread.
        Future<Void> closed = transport.close();
        assertEquals(StdioTransport.Status.CLOSING, transport.status());
        assertTrue(transport.send(message(-1)).failed(), "nothing is accepted once closing");
        return closed;
      }).onComplete(ctx.succeeding(closed -> ctx.verify(() -> {
        assertEquals(StdioTransport.Status.CLOSED, transport.status());
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(MESSAGES, lines.size());
        assertEquals(MESSAGES - 1, new JsonObject(lines.get(MESSAGES - 1)).getJsonObject("params").getInteger("i"));
        ctx.completeNow();
      })));
    });
  }

  @Test
  void closingAServerThatDoesNotReadIsBoundedByTheGraceTimes(Vertx vertx, VertxTestContext ctx) {
    Context context = vertx.getOrCreateContext();
    McpServerOptions options = child("deaf", "deaf").setShutdownGraceMs(200).setTerminateGraceMs(200);
    context.runOnContext(v -> {
      StdioTransport transport = new StdioTransport(vertx, context, options);
      transport.start(msg -> { }).compose(started -> {
        // far more than a pipe buffer: the writer thread blocks in write()
        for (int i = 0; i < 500; i++) {
          transport.send(message(i));
        }
        return transport.close();
      }).onComplete(ctx.succeeding(closed -> ctx.verify(() -> {
        assertEquals(StdioTransport.Status.CLOSED, transport.status());
        long pid = transport.describe().getLong("pid");
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the child was stopped");
        ctx.completeNow();
      })));
    });
  }

  /**
   * The call fails first and the cancel is queued after it; a close right after (the CLI
   * closes as soon as the call has failed) must still deliver the cancel.
   */
  @Test
  void aTimedOutCallIsCancelledAtTheServerEvenWhenTheConnectionClosesRightAfter(@TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      for (int run = 0; run < 3; run++) {
        Path file = dir.resolve("run" + run + ".jsonl");
        McpClient client = McpClient.create(vertx, child("recorder", "mcp", file.toString()));
        join(client.connect());
        CompletionException failed = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
          () -> join(client.callTool("hang", new JsonObject(), new CallOptions().setTimeoutMs(150))));
        assertEquals(McpException.Kind.TIMEOUT, ((McpException) failed.getCause()).kind());
        join(client.close());
        List<JsonObject> received = Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(JsonObject::new).toList();
        Object callId = received.stream().filter(m -> "tools/call".equals(m.getString("method"))).findFirst()
          .orElseThrow().getValue("id");
        assertTrue(received.stream().anyMatch(m -> "notifications/cancelled".equals(m.getString("method"))
          && callId.equals(m.getJsonObject("params").getValue("requestId"))), "run " + run + ": " + received);
      }
    } finally {
      join(vertx.close());
    }
  }

  @Test
  void anExitIsExplainedByTheServersErrorLineNotItsLastLine(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) {
    Path missing = dir.resolve("missing.js");
    McpServerOptions options = new McpServerOptions().setName("crash").setCommand("node").setArgs(List.of(missing.toString()));
    Context context = vertx.getOrCreateContext();
    context.runOnContext(v -> {
      StdioTransport transport = new StdioTransport(vertx, context, options);
      Promise<Throwable> ended = Promise.promise();
      transport.closeHandler(ended::complete);
      transport.start(msg -> { }).compose(started -> ended.future()).onComplete(ctx.succeeding(cause -> ctx.verify(() -> {
        assertEquals("server 'crash' exited (code 1): Error: Cannot find module '" + missing + "'", cause.getMessage());
        assertEquals(StdioTransport.Status.CLOSED, transport.status());
        ctx.completeNow();
      })));
    });
  }

  /** A host that closes Vert.x without closing its connections: the stream threads end quietly. */
  @Test
  void streamsThatEndAfterVertxClosedAreDroppedQuietly(@TempDir Path dir) throws Exception {
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
    try {
      Vertx vertx = Vertx.vertx();
      Context context = vertx.getOrCreateContext();
      StdioTransport transport = new StdioTransport(vertx, context, child("orphan", "record", dir.resolve("x").toString()));
      Promise<Long> started = Promise.promise();
      context.runOnContext(v -> transport.start(msg -> { }).map(s -> transport.describe().getLong("pid")).onComplete(started));
      long pid = join(started.future());
      List<Thread> readers = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("agentbus-mcp-orphan-stdout") || t.getName().equals("agentbus-mcp-orphan-stderr"))
        .toList();
      assertEquals(2, readers.size(), readers::toString);
      join(vertx.close());
      ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
      child.destroyForcibly();
      child.onExit().join();
      for (Thread t : readers) {
        t.join(10_000);
        assertFalse(t.isAlive(), t.getName() + " ended");
      }
      assertEquals(List.of(), uncaught);
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(previous);
    }
  }

  private static <T> T join(Future<T> future) {
    return future.toCompletionStage().toCompletableFuture().join();
  }
}
