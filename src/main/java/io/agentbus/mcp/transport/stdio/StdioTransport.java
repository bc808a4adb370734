package io.agentbus.mcp.transport.stdio;

import io.agentbus.config.McpServerOptions;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.transport.McpTransport;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an MCP server as a child process and speaks newline-delimited JSON-RPC over its
 * stdin/stdout. The blocking process streams each get one daemon thread: the stdout
 * reader hands bounded chunks to the owning context, the stdin writer drains a bounded
 * queue (so {@link #send} never blocks), and the stderr reader logs each line with the
 * server's name.
 */
public final class StdioTransport implements McpTransport {

  private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
  private static final byte[] END_OF_INPUT = new byte[0];
  /** How many stdout chunks may wait for the context before the reader thread pauses. */
  private static final int HANDOFF_CHUNKS = 32;
  /** Exit codes of a server that ended because we asked it to. */
  private static final List<Integer> CLEAN_EXITS = List.of(0, 130, 141, 143);

  private final Vertx vertx;
  private final Context context;
  private final McpServerOptions options;
  private final String name;
  private final BlockingQueue<byte[]> outbound;
  private final StderrLog stderr;
  private final Promise<Void> closed;
  private Handler<JsonObject> messageHandler;
  private Handler<Throwable> closeHandler;
  private Process process;
  private boolean closing;
  private boolean stdoutEnded;
  private Integer exitCode;
  private boolean ended;
  private long exitTimer = -1;
  private long termTimer = -1;

  public StdioTransport(Vertx vertx, Context context, McpServerOptions options) {
    this.vertx = vertx;
    this.context = context;
    this.options = options;
    this.name = options.getName();
    this.outbound = new ArrayBlockingQueue<>(options.getMaxPendingRequests() + 256);
    this.stderr = new StderrLog(name);
    this.closed = Promise.promise();
  }

  @Override
  public Future<Void> start(Handler<JsonObject> handler) {
    this.messageHandler = handler;
    List<String> command = new ArrayList<>();
    command.add(options.getCommand());
    command.addAll(options.getArgs());
    ProcessBuilder pb = new ProcessBuilder(command);
    SafeEnvironment.apply(pb.environment(), System.getenv(), options.getEnv());
    if (options.getCwd() != null) {
      pb.directory(new File(options.getCwd()));
    }
    return context.executeBlocking(pb::start, false)
      .recover(err -> Future.failedFuture(new McpException(Kind.TRANSPORT,
        "cannot start server '" + name + "' (" + options.getCommand() + "): " + err.getMessage())))
      .compose(this::started);
  }

  private Future<Void> started(Process p) {
    ChildProcessReaper.track(p);
    this.process = p;
    if (closing) {
      ChildProcessReaper.kill(p);
      return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' closed while starting"));
    }
    LOG.info("[{}] started {} (pid {})", name, options.getCommand(), p.pid());
    LineFramer framer = new LineFramer(options.getMaxMessageBytes(), this::onLine,
      size -> LOG.warn("[{}] skipped a {}-byte message: over the {}-byte limit", name, size, options.getMaxMessageBytes()));
    daemon("stdout", () -> readStdout(p.getInputStream(), framer));
    daemon("stdin", () -> writeStdin(p.getOutputStream()));
    daemon("stderr", () -> stderr.drain(p.getErrorStream()));
    p.onExit().thenAccept(done -> context.runOnContext(v -> onExit(done.exitValue())));
    return Future.succeededFuture();
  }

  private void daemon(String stream, Runnable body) {
    Thread t = new Thread(body, "agentbus-mcp-" + name + "-" + stream);
    t.setDaemon(true);
    t.start();
  }

  private void readStdout(InputStream in, LineFramer framer) {
    Semaphore credits = new Semaphore(HANDOFF_CHUNKS);
    byte[] buf = new byte[64 * 1024];
    try (in) {
      int n;
      while ((n = in.read(buf)) != -1) {
        byte[] chunk = Arrays.copyOf(buf, n);
        credits.acquire();
        context.runOnContext(v -> {
          try {
            framer.handle(chunk, chunk.length);
          } finally {
            credits.release();
          }
        });
      }
    } catch (IOException e) {
      LOG.debug("[{}] stdout read ended: {}", name, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    context.runOnContext(v -> onStdoutEnd());
  }

  private void writeStdin(OutputStream out) {
    try (out) {
      while (true) {
        byte[] bytes = outbound.take();
        if (bytes == END_OF_INPUT) {
          break;
        }
        out.write(bytes);
        if (outbound.isEmpty()) {
          out.flush();
        }
      }
    } catch (IOException e) {
      LOG.debug("[{}] stdin write ended: {}", name, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void onLine(Buffer line) {
    JsonObject msg;
    try {
      Object parsed = line.toJsonValue();
      if (!(parsed instanceof JsonObject obj)) {
        LOG.warn("[{}] skipped a line that is not a JSON-RPC object: {}", name, preview(line));
        return;
      }
      msg = obj;
    } catch (DecodeException e) {
      LOG.warn("[{}] skipped a line that is not JSON: {}", name, preview(line));
      return;
    }
    messageHandler.handle(msg);
  }

  private static String preview(Buffer line) {
    String s = line.length() > 200 ? line.getString(0, 200) + "..." : line.toString();
    return s.replaceAll("\\p{Cntrl}", "?");
  }

  @Override
  public Future<Void> send(JsonObject message) {
    if (process == null || closing || ended) {
      return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' is not running"));
    }
    byte[] bytes = message.toBuffer().appendByte((byte) '\n').getBytes();
    if (!outbound.offer(bytes)) {
      return Future.failedFuture(new McpException(Kind.QUEUE_FULL, "server '" + name + "': outbound queue is full"));
    }
    return Future.succeededFuture();
  }

  private void onStdoutEnd() {
    stdoutEnded = true;
    if (exitCode != null) {
      finish();
    } else if (!closing) {
      // Usually the exit notification follows at once; a server that keeps running with a
      // closed stdout is of no use, so it is stopped after the grace time.
      termTimer = vertx.setTimer(options.getShutdownGraceMs(), t -> {
        if (!ended) {
          LOG.warn("[{}] closed its stdout but is still running; stopping it", name);
          terminate();
        }
      });
    }
  }

  private void onExit(int code) {
    exitCode = code;
    if (stdoutEnded) {
      finish();
    } else {
      // A grandchild may hold stdout open; give the reader a moment to drain, then go on.
      exitTimer = vertx.setTimer(1_000, t -> finish());
    }
  }

  private void finish() {
    if (ended) {
      return;
    }
    ended = true;
    vertx.cancelTimer(exitTimer);
    vertx.cancelTimer(termTimer);
    outbound.clear();
    outbound.offer(END_OF_INPUT);
    if (closing) {
      if (CLEAN_EXITS.contains(exitCode)) {
        LOG.info("[{}] stopped (exit code {})", name, exitCode);
      } else {
        LOG.warn("[{}] stopped with exit code {}", name, exitCode);
      }
      closed.tryComplete();
      return;
    }
    String last = stderr.lastLine();
    String message = "server '" + name + "' exited (code " + exitCode + ")" + (last == null ? "" : ": " + last);
    LOG.warn("[{}] {}", name, message);
    closed.tryComplete();
    if (closeHandler != null) {
      closeHandler.handle(new McpException(Kind.CONNECTION_CLOSED, message));
    }
  }

  @Override
  public McpTransport closeHandler(Handler<Throwable> handler) {
    this.closeHandler = handler;
    return this;
  }

  @Override
  public Future<Void> close() {
    if (closing || ended) {
      return closed.future();
    }
    closing = true;
    if (process == null) {
      ended = true;
      closed.tryComplete();
      return closed.future();
    }
    outbound.clear();
    outbound.offer(END_OF_INPUT);
    termTimer = vertx.setTimer(options.getShutdownGraceMs(), t -> {
      if (!ended) {
        LOG.info("[{}] did not exit after stdin closed; sending SIGTERM", name);
        terminate();
      }
    });
    return closed.future();
  }

  /** SIGTERM now, SIGKILL (with descendants) after the terminate grace time. */
  private void terminate() {
    process.destroy();
    termTimer = vertx.setTimer(options.getTerminateGraceMs(), t -> {
      if (!ended) {
        LOG.warn("[{}] did not exit after SIGTERM; sending SIGKILL", name);
        ChildProcessReaper.kill(process);
      }
    });
  }

  @Override
  public JsonObject describe() {
    JsonObject d = new JsonObject().put("transport", "stdio").put("command", options.getCommand());
    if (process != null) {
      d.put("pid", process.pid());
    }
    return d;
  }
}
