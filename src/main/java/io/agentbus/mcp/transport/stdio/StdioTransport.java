package io.agentbus.mcp.transport.stdio;

import io.agentbus.limits.LogRateLimit;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.transport.McpTransport;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
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
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an MCP server as a child process and speaks newline-delimited JSON-RPC over its
 * stdin/stdout. The blocking process streams each get one daemon thread: the stdout
 * reader hands bounded chunks to the owning context, the stdin writer drains a bounded
 * queue (so {@link #send} never blocks), and the stderr reader logs each line with the
 * server's name. What a server prints is logged rate-limited ({@link LogRateLimit}): garbage on
 * stdout as a few warnings per kind and a count, stderr as a few lines a second and a count.
 *
 * <p>A graceful {@link #close()} lets the writer flush what was sent before it (a
 * {@code notifications/cancelled} queued by a timed-out call, say), then closes stdin; the
 * server gets {@code shutdownGraceMs} from then to exit before SIGTERM, and
 * {@code terminateGraceMs} more before SIGKILL, so the flush is bounded in time too.
 */
public final class StdioTransport implements McpTransport {

  /** Lifecycle of the child process connection. */
  enum Status {
    /** Created, {@link #start} not called yet. */
    NEW,
    /** The process is being spawned. */
    STARTING,
    /** The process runs; messages may be sent. */
    RUNNING,
    /** {@link #close()} was called: pending writes are flushed, stdin is closed, the process is stopped. */
    CLOSING,
    /** The process has exited (or never started) and its streams are done. */
    CLOSED
  }

  private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
  private static final byte[] END_OF_INPUT = new byte[0];
  /** How many stdout chunks may wait for the context before the reader thread pauses. */
  private static final int HANDOFF_CHUNKS = 32;
  /** How long an exited server's stdout and stderr may stay open (held by a grandchild). */
  private static final long STREAMS_AFTER_EXIT_MS = 1_000;
  /** Exit codes of a server that ended because we asked it to. */
  private static final List<Integer> CLEAN_EXITS = List.of(0, 130, 141, 143);

  private final Vertx vertx;
  private final Context context;
  private final McpServerOptions options;
  private final String name;
  /** One slot more than {@link #send} may fill, so that {@link #END_OF_INPUT} always fits. */
  private final BlockingQueue<byte[]> outbound;
  private final StdoutLines stdout;
  private final StderrLog stderr;
  private final Promise<Void> closed;
  private Handler<JsonObject> messageHandler;
  private Handler<Throwable> closeHandler;
  private Process process;
  private Status status = Status.NEW;
  // What is left of the process once it ends: it is done when all three are in (or after a timer).
  private Integer exitCode;
  private boolean stdoutEnded;
  private boolean stderrEnded;
  private long exitTimer = -1;
  private long termTimer = -1;

  public StdioTransport(Vertx vertx, Context context, McpServerOptions options) {
    this.vertx = vertx;
    this.context = context;
    this.options = options;
    this.name = options.getName();
    this.outbound = new ArrayBlockingQueue<>(options.getMaxPendingRequests() + 256 + 1);
    LogRateLimit.Scheduler timers = (delayMs, task) -> vertx.setTimer(delayMs, id -> task.run());
    this.stdout = new StdoutLines(name, options.getMaxMessageBytes(), msg -> messageHandler.handle(msg), timers);
    this.stderr = new StderrLog(name, timers);
    this.closed = Promise.promise();
  }

  @Override
  public Future<Void> start(Handler<JsonObject> handler) {
    if (status != Status.NEW) {
      return Future.failedFuture(new McpException(Kind.TRANSPORT, "server '" + name + "': transport is " + status));
    }
    status = Status.STARTING;
    this.messageHandler = handler;
    List<String> command = new ArrayList<>();
    command.add(options.getCommand());
    command.addAll(options.getArgs());
    ProcessBuilder pb = new ProcessBuilder(command);
    SafeEnvironment.apply(pb.environment(), System.getenv(), options.getEnv());
    if (options.getCwd() != null) {
      pb.directory(new File(options.getCwd()));
    }
    return context.executeBlocking(() -> {
      String missing = MissingInterop.check(options);
      if (missing != null) {
        throw new McpException(Kind.TRANSPORT, missing);
      }
      return pb.start();
    }, false)
      .recover(err -> Future.failedFuture(err instanceof McpException ? err : new McpException(Kind.TRANSPORT,
        "cannot start server '" + name + "' (" + options.getCommand() + "): " + err.getMessage())))
      .compose(this::started);
  }

  private Future<Void> started(Process p) {
    ChildProcessReaper.track(p);
    this.process = p;
    if (status != Status.STARTING) {
      ChildProcessReaper.kill(p);
      return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' closed while starting"));
    }
    status = Status.RUNNING;
    LOG.info("[{}] started {} (pid {})", name, options.getCommand(), p.pid());
    LineFramer framer = new LineFramer(options.getMaxMessageBytes(), stdout::line, stdout::oversized);
    daemon("stdout", () -> readStdout(p.getInputStream(), framer));
    daemon("stdin", () -> writeStdin(p.getOutputStream()));
    daemon("stderr", () -> {
      stderr.drain(p.getErrorStream());
      post(v -> onStderrEnd());
    });
    p.onExit().thenAccept(done -> post(v -> onExit(done.exitValue())));
    return Future.succeededFuture();
  }

  private void daemon(String stream, Runnable body) {
    Thread t = new Thread(body, "agentbus-mcp-" + name + "-" + stream);
    t.setDaemon(true);
    t.start();
  }

  /**
   * Hands work from a stream thread to the context. The context's Vert.x instance may be
   * closed already (a host that exits without closing its clients): then there is nobody
   * left to tell, and the work is dropped.
   *
   * @return whether the context took the work
   */
  private boolean post(Handler<Void> work) {
    try {
      context.runOnContext(work);
      return true;
    } catch (RejectedExecutionException e) {
      LOG.debug("[{}] context closed; dropped stream event", name);
      return false;
    }
  }

  private void readStdout(InputStream in, LineFramer framer) {
    Semaphore credits = new Semaphore(HANDOFF_CHUNKS);
    byte[] buf = new byte[64 * 1024];
    try (in) {
      int n;
      while ((n = in.read(buf)) != -1) {
        byte[] chunk = Arrays.copyOf(buf, n);
        credits.acquire();
        boolean taken = post(v -> {
          try {
            framer.handle(chunk, chunk.length);
          } finally {
            credits.release();
          }
        });
        if (!taken) {
          return;
        }
      }
    } catch (IOException e) {
      LOG.debug("[{}] stdout read ended: {}", name, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    post(v -> onStdoutEnd());
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

  @Override
  public Future<Void> send(JsonObject message) {
    if (status != Status.RUNNING) {
      return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' is not running"
        + (status == Status.NEW || status == Status.STARTING ? " yet" : "")));
    }
    byte[] bytes = message.toBuffer().appendByte((byte) '\n').getBytes();
    // Only this context adds to the queue, so a free slot seen here stays free for the offer.
    if (outbound.remainingCapacity() <= 1 || !outbound.offer(bytes)) {
      return Future.failedFuture(new McpException(Kind.QUEUE_FULL, "server '" + name + "': outbound queue is full"));
    }
    return Future.succeededFuture();
  }

  private void onStdoutEnd() {
    stdoutEnded = true;
    if (exitCode != null) {
      finishIfDrained();
    } else if (status == Status.RUNNING) {
      // Usually the exit notification follows at once; a server that keeps running with a
      // closed stdout is of no use, so it is stopped after the grace time.
      termTimer = vertx.setTimer(options.getShutdownGraceMs(), t -> {
        if (status == Status.RUNNING) {
          LOG.warn("[{}] closed its stdout but is still running; stopping it", name);
          terminate();
        }
      });
    }
  }

  private void onStderrEnd() {
    stderrEnded = true;
    finishIfDrained();
  }

  private void onExit(int code) {
    exitCode = code;
    if (!finishIfDrained()) {
      // A grandchild may hold stdout or stderr open; give the readers a moment, then go on.
      exitTimer = vertx.setTimer(STREAMS_AFTER_EXIT_MS, t -> finish());
    }
  }

  /** Finishes once the process has exited and both of its output streams are read to the end. */
  private boolean finishIfDrained() {
    if (exitCode != null && stdoutEnded && stderrEnded) {
      finish();
      return true;
    }
    return false;
  }

  private void finish() {
    if (status == Status.CLOSED) {
      return;
    }
    boolean asked = status == Status.CLOSING;
    status = Status.CLOSED;
    vertx.cancelTimer(exitTimer);
    vertx.cancelTimer(termTimer);
    stdout.flush();
    stderr.flush();
    // Nobody reads stdin any more: unblock the writer.
    outbound.clear();
    outbound.offer(END_OF_INPUT);
    if (asked) {
      if (CLEAN_EXITS.contains(exitCode)) {
        LOG.info("[{}] stopped (exit code {})", name, exitCode);
      } else {
        LOG.warn("[{}] stopped with exit code {}", name, exitCode);
      }
      closed.tryComplete();
      return;
    }
    String said = stderr.summary();
    String message = "server '" + name + "' exited (code " + exitCode + ")" + (said == null ? "" : ": " + said);
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
    switch (status) {
      case NEW, STARTING -> {
        // started() kills a process that comes up after this.
        status = Status.CLOSED;
        closed.tryComplete();
      }
      case RUNNING -> {
        status = Status.CLOSING;
        // Flush: the writer sends what is queued, then closes stdin. send() keeps one slot
        // free, so this always fits.
        outbound.offer(END_OF_INPUT);
        termTimer = vertx.setTimer(options.getShutdownGraceMs(), t -> {
          if (status == Status.CLOSING) {
            LOG.info("[{}] did not exit after stdin closed; sending SIGTERM", name);
            terminate();
          }
        });
      }
      default -> {
      }
    }
    return closed.future();
  }

  /** SIGTERM now, SIGKILL (with descendants) after the terminate grace time. */
  private void terminate() {
    process.destroy();
    termTimer = vertx.setTimer(options.getTerminateGraceMs(), t -> {
      if (status != Status.CLOSED) {
        LOG.warn("[{}] did not exit after SIGTERM; sending SIGKILL", name);
        ChildProcessReaper.kill(process);
      }
    });
  }

  /** @return the lifecycle state (tests) */
  Status status() {
    return status;
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
