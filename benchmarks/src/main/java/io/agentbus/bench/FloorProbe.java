package io.agentbus.bench;

import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fixture floor: how late the fixtures' own timers fire. Each fixture (the mock model
 * server's event loops, the bench MCP server's timer thread or event loops) runs a probe timer
 * every {@value #PERIOD_MS} ms and also records how late its real latency timers fire (model
 * replies, tool answers); every {@value #REPORT_MS} ms a {@link Reporter} thread sends the worst
 * lateness of that window, {@code "<source> <nanos>"}, as one UDP datagram to the harness'
 * {@link Listener} on loopback (the port comes as {@code --probe-port P}). The harness resets the
 * listener when a measured phase's ramp is over and reads the maxima when the phase ends: time
 * the fixtures themselves lost (GC pauses, a saturated event loop, the box's other load) that
 * a subject's turn overhead cannot go below.
 *
 * <p>A push rather than a request channel because the stdio MCP server is spawned by the subject
 * (Agentbus, {@code serve}, LangChain4j), whose stdin and stdout carry JSON-RPC.
 */
final class FloorProbe {

  /** The mock model server's event loops. */
  static final String MOCK = "mock";
  /** The bench MCP server's timers (stdio: its timer thread; HTTP: its event loops). */
  static final String TOOL = "tool";
  static final long PERIOD_MS = 10;
  static final long REPORT_MS = 100;

  private FloorProbe() {
  }

  /** @return the value of {@code --probe-port} in {@code args} (pairs), or 0 (no probe) */
  static int portArg(String[] args) {
    for (int i = 0; i + 1 < args.length; i++) {
      if ("--probe-port".equals(args[i])) {
        return Integer.parseInt(args[i + 1]);
      }
    }
    return 0;
  }

  /** Fixture side: the worst lateness since the last report, sent every {@value #REPORT_MS} ms. */
  static final class Reporter {
    private static Reporter shared;
    private final AtomicLong maxNanos = new AtomicLong();
    private final boolean on;

    private Reporter(boolean on) {
      this.on = on;
    }

    /**
     * @return this process' reporter, started on first use (its sender thread only when
     *     {@code port} > 0; otherwise recording is a no-op)
     */
    static synchronized Reporter of(String source, int port) {
      if (shared == null) {
        shared = new Reporter(port > 0);
        if (shared.on) {
          Reporter r = shared;
          Thread sender = new Thread(() -> r.send(source, port), "floor-probe");
          sender.setDaemon(true);
          sender.start();
        }
      }
      return shared;
    }

    /** Records that a timer due at {@code dueNanos} ({@link System#nanoTime()}) fires now. */
    void fired(long dueNanos) {
      if (on) {
        long late = System.nanoTime() - dueNanos;
        if (late > maxNanos.get()) {
          maxNanos.accumulateAndGet(late, Math::max);
        }
      }
    }

    /** A {@value #PERIOD_MS} ms probe timer on the calling verticle's event loop. */
    void probe(Vertx vertx) {
      if (on) {
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
        vertx.setTimer(PERIOD_MS, id -> {
          fired(due);
          probe(vertx);
        });
      }
    }

    /** A {@value #PERIOD_MS} ms probe timer on {@code timer}'s thread. */
    void probe(ScheduledExecutorService timer) {
      if (on) {
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
        timer.schedule(() -> {
          fired(due);
          probe(timer);
        }, PERIOD_MS, TimeUnit.MILLISECONDS);
      }
    }

    private void send(String source, int port) {
      try (DatagramSocket socket = new DatagramSocket()) {
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        while (true) {
          Thread.sleep(REPORT_MS);
          byte[] msg = (source + " " + maxNanos.getAndSet(0)).getBytes(StandardCharsets.US_ASCII);
          try {
            socket.send(new DatagramPacket(msg, msg.length, to));
          } catch (IOException e) {
            // the harness is gone or busy: the next window reports again
          }
        }
      } catch (IOException | InterruptedException e) {
        // no socket: no floor figures, the fixture itself keeps working
      }
    }
  }

  private static Listener listener;

  /** @return the harness' listener, started on first use */
  static synchronized Listener listener() {
    if (listener == null) {
      listener = new Listener();
    }
    return listener;
  }

  /** Harness side: the worst lateness per source since the last {@link #reset()}. */
  static final class Listener {
    private final DatagramSocket socket;
    private final Map<String, Long> max = new ConcurrentHashMap<>();

    private Listener() {
      try {
        socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      } catch (IOException e) {
        throw new IllegalStateException("cannot open the floor probe's UDP socket", e);
      }
      Thread t = new Thread(this::receive, "floor-probe-listener");
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    /** The arguments that make a fixture report here. */
    List<String> args() {
      return List.of("--probe-port", String.valueOf(port()));
    }

    void reset() {
      max.clear();
    }

    /**
     * Waits for the fixtures' current window to arrive, then returns the worst lateness in ms
     * per source since {@link #reset()} (a source that sent nothing is absent).
     */
    Map<String, Double> read() throws InterruptedException {
      Thread.sleep(REPORT_MS + 30);
      Map<String, Double> ms = new TreeMap<>();
      max.forEach((source, nanos) -> ms.put(source, Row.round(nanos / 1e6, 3)));
      return ms;
    }

    private void receive() {
      byte[] buf = new byte[256];
      while (true) {
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        try {
          socket.receive(p);
          String[] parts = new String(p.getData(), 0, p.getLength(), StandardCharsets.US_ASCII).trim().split(" ");
          if (parts.length == 2) {
            max.merge(parts[0], Long.parseLong(parts[1]), Math::max);
          }
        } catch (IOException | NumberFormatException e) {
          if (socket.isClosed()) {
            return;
          }
        }
      }
    }
  }
}
