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
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that talks to an SQLite file, and its bounded queue. Each job carries its
 * caller's context and a deadline timer; its outcome is handed back on that context. Whichever
 * comes first, the deadline or the outcome, completes the job's promise: a job whose deadline
 * passed while it waited is never run. On close, the waiting jobs fail.
 *
 * <p>Writes are committed in groups: a write job takes the writes queued behind it (up to
 * {@value #MAX_GROUP}) into one transaction, each inside a savepoint of its own, so one
 * write's failure (a version conflict) rolls back that write alone, and one commit (one sync
 * to disk) serves the whole group. Under load the groups grow, so the disk's sync rate no
 * longer bounds the write rate; with nothing queued a write commits alone at once.
 *
 * <p>The JDBC connection is touched by the worker thread only. It is opened lazily, with a
 * {@link SqliteSession} that caches its prepared statements, and dropped (statements included)
 * after an error that may have broken it, so the next job reopens it: the store recovers by
 * itself once the file is usable again.
 */
final class SqliteWorker {

  private static final Logger log = LoggerFactory.getLogger(SqliteWorker.class);
  /** The most writes committed in one transaction. */
  static final int MAX_GROUP = 128;

  private static final String BEGIN_IMMEDIATE = "BEGIN IMMEDIATE";
  private static final String COMMIT = "COMMIT";
  private static final String ROLLBACK = "ROLLBACK";
  private static final String SAVEPOINT = "SAVEPOINT agentbus_write";
  private static final String ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO agentbus_write";
  private static final String RELEASE_SAVEPOINT = "RELEASE agentbus_write";

  /** Work run on the worker thread with the open connection and its statement cache. */
  interface Work<T> {
    T run(SqliteSession session) throws Exception;
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
  private final AtomicLong prepares = new AtomicLong();
  private SqliteSession session;

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
    return submit(op, work, false);
  }

  /**
   * Queues a write: {@code work} runs inside a transaction the worker opens and commits (it
   * must not begin or end one itself), possibly with other writes; its outcome is reported only
   * once that transaction committed.
   *
   * @param op the operation's name, for errors
   * @return its outcome on the caller's context, as {@link #submit}
   */
  <T> Future<T> submitWrite(String op, Work<T> work) {
    return submit(op, work, true);
  }

  private <T> Future<T> submit(String op, Work<T> work, boolean write) {
    if (closed.get()) {
      return Future.failedFuture(closedError(op));
    }
    Job<T> job = new Job<>(op, work, vertx.getOrCreateContext(), write);
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
        dropSession();
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

  /** @return how many statements were compiled, over every connection opened so far */
  long statementsPrepared() {
    return prepares.get();
  }

  private SqliteSession session() throws Exception {
    if (session == null) {
      session = new SqliteSession(opener.open(), prepares);
    }
    return session;
  }

  /** Closes the connection with its cached statements; the next job opens a new one. */
  private void dropSession() {
    if (session != null) {
      try {
        session.close();
      } catch (SQLException e) {
        log.debug("{}: closing the connection failed: {}", store, e.getMessage());
      }
      session = null;
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

  /**
   * Runs {@code first} and the writes queued right behind it in one transaction (on the worker
   * thread). A failure of the transaction itself (BEGIN, a broken savepoint, COMMIT) fails every
   * write of the group: none of them is stored.
   */
  private void runGroup(Job<?> first) {
    List<Job<?>> group = new ArrayList<>();
    group.add(first);
    while (group.size() < MAX_GROUP && executor.getQueue().peek() instanceof Job<?> next && next.write) {
      if (executor.getQueue().remove(next) && next.state.compareAndSet(Job.QUEUED, Job.RUNNING)) {
        group.add(next);
      }
    }
    Throwable groupFailure = null;
    SqliteSession s = null;
    try {
      s = session();
      s.execute(BEGIN_IMMEDIATE);
      try {
        if (group.size() > 1) {
          for (Job<?> job : group) {
            job.runInGroup(s);
          }
          s.execute(COMMIT);
        } else {
          s.execute(first.runAlone(s) ? COMMIT : ROLLBACK);
        }
      } catch (Throwable e) {
        try {
          s.execute(ROLLBACK);
        } catch (SQLException rollback) {
          e.addSuppressed(rollback);
        }
        throw e;
      }
    } catch (Throwable e) {
      groupFailure = e;
      if (breaksConnection(e) || s == null) {
        log.warn("{}: {} writes failed ({}); the connection is reopened on the next request", store, group.size(), e.getMessage());
        dropSession();
      }
    }
    if (session != null) {
      session.recycle(groupFailure);
    }
    for (Job<?> job : group) {
      job.reportGroup(groupFailure);
    }
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
    final boolean write;
    volatile long timer;
    private T result;
    private Throwable failure;

    Job(String op, Work<T> work, Context context, boolean write) {
      this.op = op;
      this.work = work;
      this.context = context;
      this.write = write;
    }

    @Override
    public void run() {
      if (!state.compareAndSet(QUEUED, RUNNING)) {
        return;
      }
      if (write) {
        runGroup(this);
        return;
      }
      T value = null;
      Throwable error = null;
      SqliteSession s = null;
      try {
        s = session();
        value = work.run(s);
      } catch (Throwable e) {
        error = e;
      }
      if (s != null) {
        s.recycle(error);
      }
      if (breaksConnection(error)) {
        log.warn("{}: {} failed ({}); the connection is reopened on the next request", store, op, error.getMessage());
        dropSession();
      }
      report(value, error);
    }

    /**
     * Runs this write as its transaction's only one, with no savepoint: its failure rolls
     * back the whole transaction, which holds nothing else. Its own failure is kept as its
     * outcome, not made the group's.
     *
     * @return whether to commit (the write succeeded)
     */
    boolean runAlone(SqliteSession s) {
      return runWork(s);
    }

    /** Runs this write inside the group's transaction, in a savepoint of its own. */
    void runInGroup(SqliteSession s) throws SQLException {
      s.execute(SAVEPOINT);
      if (!runWork(s)) {
        s.execute(ROLLBACK_TO_SAVEPOINT);
      }
      s.execute(RELEASE_SAVEPOINT);
    }

    /** Runs the work, keeping its result or failure; @return whether it succeeded. */
    private boolean runWork(SqliteSession s) {
      // what this write's failure recompiles is its own statements, never the group's BEGIN or SAVEPOINT
      s.recycle(null);
      try {
        result = work.run(s);
      } catch (Exception e) {
        failure = e;
      }
      // before the next write of the group reuses them
      s.recycle(failure);
      return failure == null;
    }

    /** Reports what {@link #runInGroup} left, or {@code groupFailure} when the group did not commit. */
    void reportGroup(Throwable groupFailure) {
      report(groupFailure != null ? null : result, groupFailure != null ? groupFailure : failure);
    }

    private void report(T value, Throwable error) {
      state.set(DONE);
      T r = value;
      StoreException f = error == null ? null : map(op, error);
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
