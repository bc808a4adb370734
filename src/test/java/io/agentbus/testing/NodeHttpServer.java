package io.agentbus.testing;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real server-everything in one of its HTTP modes ({@code streamableHttp} or {@code sse}),
 * started from the pinned interop node_modules on a free port. Its output is drained on a
 * plain daemon thread (logged at DEBUG, as it contains session ids), and readiness is
 * handed to the caller's context through a Promise.
 */
public final class NodeHttpServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeHttpServer.class);

  private final Process process;
  private final int port;

  private NodeHttpServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts server-everything in {@code mode}; completes on {@code context} once it listens. */
  public static Future<NodeHttpServer> start(Vertx vertx, Context context, String mode) {
    try {
      return start(vertx, context, mode, freePort());
    } catch (IOException e) {
      return Future.failedFuture(e);
    }
  }

  /** Starts server-everything in {@code mode} on a given port (to restart it in place). */
  public static Future<NodeHttpServer> start(Vertx vertx, Context context, String mode, int port) {
    Promise<NodeHttpServer> ready = Promise.promise();
    try {
      String script = InteropServers.dir().resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js").toString();
      ProcessBuilder pb = new ProcessBuilder(List.of("node", script, mode)).redirectErrorStream(true);
      pb.environment().put("PORT", Integer.toString(port));
      Process p = pb.start();
      NodeHttpServer server = new NodeHttpServer(p, port);
      Thread reader = new Thread(() -> drain(p, server, context, ready), "node-" + mode + "-output");
      reader.setDaemon(true);
      reader.start();
    } catch (IOException e) {
      ready.fail(e);
    }
    return ready.future();
  }

  private static void drain(Process p, NodeHttpServer server, Context context, Promise<NodeHttpServer> ready) {
    Deque<String> last = new ArrayDeque<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        LOG.debug("node: {}", line);
        last.addLast(line);
        if (last.size() > 20) {
          last.removeFirst();
        }
        if (line.contains("listening on port") || line.contains("running on port")) {
          context.runOnContext(v -> ready.tryComplete(server));
        }
      }
    } catch (IOException e) {
      LOG.debug("node output ended: {}", e.toString());
    }
    String tail = String.join("\n", last);
    context.runOnContext(v -> ready.tryFail(new IllegalStateException("server-everything exited before listening:\n" + tail)));
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** @return the port it listens on */
  public int port() {
    return port;
  }

  /** Stops the process (SIGTERM, then SIGKILL) and waits for it. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
  }
}
