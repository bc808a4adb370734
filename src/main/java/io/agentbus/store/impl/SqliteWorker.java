package io.agentbus.store.impl;

import io.agentbus.store.StoreException;
import io.agentbus.store.StoreException.Kind;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that talks to an SQLite file, and its bounded queue. Each job carries its
 * caller's context and a deadline timer; its outcome is handed back on that context. Whichever
 * comes first, the deadline or the outcome, completes the job's promise: a job whose deadline
 * passed while it waited is never run. On close, the waiting jobs fail.
 *
 * <p>The JDBC connection is touched by the worker thread only. It is opened lazily and dropped
 * after an error that may have broken it, so the next job reopens it: the store recovers by
 * itself once the file is usable again.
 */
final class SqliteWorker {

  private static final Logger log = LoggerFactory.getLogger(SqliteWorker.class);

  /** Work run on the worker thread with the open connection. */
  interface Work<T> {
    T run(Connection connection) throws Exception;
  }

  /** Opens the connection (on the worker thread). */
  interface Opener {
    Connection open() throws Exception;
  }

  private final Vertx vertx;
  private final String store;
  private final long timeoutMs;
  private final int maxPending;
  private final Opener opener;
  private final ThreadPoolExecutor executor;
  private final AtomicBoolean closed = new AtomicBoolean();
  private Connection connection;

  SqliteWorker(Vertx vertx, String store, long timeoutMs, int maxPending, Opener opener) {
    this.vertx = vertx;
    this.store = store;
    this.timeoutMs = timeoutMs;
    this.maxPending = maxPending;
    this.opener = opener;
    this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(maxPending), r -> {
      Thread t = new Thread(r, "agentbus-store-sqlite");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Queues {@code work}.
   *
   * @param op the operation's name, for errors
   * @return its outcome on the caller's context; UNAVAILABLE when the queue is full or the store
   *     closed, TIMEOUT past the deadline
   */
  <T> Future<T> submit(String op, Work<T> work) {
    if (closed.get()) {
      return Future.failedFuture(closedError(op));
    }
    Job<T> job = new Job<>(op, work, vertx.getOrCreateContext());
    job.timer = vertx.setTimer(timeoutMs, t -> job.expire());
    try {
      executor.execute(job);
    } catch (RejectedExecutionException e) {
      vertx.cancelTimer(job.timer);
      return Future.failedFuture(closed.get() ? closedError(op)
        : new StoreException(Kind.UNAVAILABLE, store + ": " + op + " refused: " + maxPending + " requests already waiting"));
    }
    return job.promise.future();
  }

  /** Fails the waiting jobs, runs {@code last} (if any) after the running one, then closes the connection. */
  Future<Void> close() {
    if (!closed.compareAndSet(false, true)) {
      return Future.succeededFuture();
    }
    List<Runnable> waiting = new ArrayList<>();
    executor.getQueue().drainTo(waiting);
    for (Runnable r : waiting) {
      ((Job<?>) r).cancel(closedError(((Job<?>) r).op));
    }
    Context ctx = vertx.getOrCreateContext();
    Promise<Void> done = Promise.promise();
    try {
      executor.execute(() -> {
        dropConnection();
        ctx.runOnContext(v -> done.complete());
      });
    } catch (RejectedExecutionException e) {
      done.complete();
    }
    executor.shutdown();
    return done.future();
  }

  private StoreException closedError(String op) {
    return new StoreException(Kind.UNAVAILABLE, store + " is closed (" + op + ")");
  }

  private Connection connection() throws Exception {
    if (connection == null) {
      connection = opener.open();
    }
    return connection;
  }

  private void dropConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        log.debug("{}: closing the connection failed: {}", store, e.getMessage());
      }
      connection = null;
    }
  }

  /** @return the failure as a StoreException naming the store and the operation */
  StoreException map(String op, Throwable e) {
    if (e instanceof StoreException se) {
      return se;
    }
    if (e instanceof SQLException sql) {
      int primary = sql.getErrorCode() & 0xff;
      String what = store + ": " + op + " failed: " + sql.getMessage();
      return switch (primary) {
        // BUSY, LOCKED, NOMEM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, PROTOCOL, NOTADB
        case 5, 6, 7, 8, 10, 11, 13, 14, 15, 26 -> new StoreException(Kind.UNAVAILABLE, what, e);
        default -> new StoreException(Kind.FAILED, what, e);
      };
    }
    return new StoreException(Kind.FAILED, store + ": " + op + " failed: " + e, e);
  }

  /** @return whether the connection may be broken after {@code e} (I/O, a damaged or vanished file, a closed handle) */
  private static boolean breaksConnection(Throwable e) {
    if (!(e instanceof SQLException sql)) {
      return false;
    }
    return switch (sql.getErrorCode() & 0xff) {
      case 7, 8, 10, 11, 14, 15, 26 -> true;
      case 0 -> String.valueOf(sql.getMessage()).contains("closed");
      default -> false;
    };
  }

  private final class Job<T> implements Runnable {

    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;

    final String op;
    final Work<T> work;
    final Context context;
    final Promise<T> promise = Promise.promise();
    final AtomicInteger state = new AtomicInteger(QUEUED);
    volatile long timer;

    Job(String op, Work<T> work, Context context) {
      this.op = op;
      this.work = work;
      this.context = context;
    }

    @Override
    public void run() {
      if (!state.compareAndSet(QUEUED, RUNNING)) {
        return;
      }
      T result = null;
      Throwable failure = null;
      try {
        result = work.run(connection());
      } catch (Throwable e) {
        failure = e;
        if (breaksConnection(e)) {
          log.warn("{}: {} failed ({}); the connection is reopened on the next request", store, op, e.getMessage());
          dropConnection();
        }
      }
      state.set(DONE);
      T r = result;
      StoreException f = failure == null ? null : map(op, failure);
      context.runOnContext(v -> {
        vertx.cancelTimer(timer);
        if (f == null) {
          promise.tryComplete(r);
        } else {
          promise.tryFail(f);
        }
      });
    }

    /** The deadline passed: fail now, and never run when still queued. */
    void expire() {
      if (state.compareAndSet(QUEUED, DONE)) {
        executor.remove(this);
        promise.tryFail(new StoreException(Kind.TIMEOUT,
          store + ": " + op + " waited " + timeoutMs + " ms for the database and was not run"));
      } else if (state.get() == RUNNING) {
        promise.tryFail(new StoreException(Kind.TIMEOUT,
          store + ": " + op + " did not finish within " + timeoutMs + " ms (a write may still commit: reload before retrying)"));
      }
    }

    void cancel(StoreException failure) {
      if (state.compareAndSet(QUEUED, DONE)) {
        context.runOnContext(v -> {
          vertx.cancelTimer(timer);
          promise.tryFail(failure);
        });
      }
    }
  }
}
