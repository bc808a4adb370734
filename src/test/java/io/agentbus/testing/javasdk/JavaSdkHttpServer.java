package io.agentbus.testing.javasdk;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link JavaSdkServer} in {@code http} mode as a child JVM (Tomcat on a free port). Its
 * output is drained on a daemon thread (logged at DEBUG); the port it prints is handed to the
 * caller's context through a Promise.
 */
public final class JavaSdkHttpServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JavaSdkHttpServer.class);

  private final Process process;
  private volatile int port;

  private JavaSdkHttpServer(Process process) {
    this.process = process;
  }

  /** The stdio variant: launch options for {@link JavaSdkServer} as a child JVM speaking stdio. */
  public static McpServerOptions stdioOptions(String name) {
    return InteropServers.javaMain(name, JavaSdkServer.class, "stdio");
  }

  /** Starts the server; completes on {@code context} once it listens. */
  public static Future<JavaSdkHttpServer> start(Context context) {
    Promise<JavaSdkHttpServer> ready = Promise.promise();
    McpServerOptions launch = InteropServers.javaMain("javasdk-http", JavaSdkServer.class, "http");
    List<String> argv = new ArrayList<>();
    argv.add(launch.getCommand());
    argv.addAll(launch.getArgs());
    try {
      Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      JavaSdkHttpServer server = new JavaSdkHttpServer(p);
      Thread reader = new Thread(() -> server.drain(context, ready), "javasdk-http-output");
      reader.setDaemon(true);
      reader.start();
    } catch (IOException e) {
      ready.fail(e);
    }
    return ready.future();
  }

  private void drain(Context context, Promise<JavaSdkHttpServer> ready) {
    Deque<String> last = new ArrayDeque<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        LOG.debug("javasdk: {}", line);
        last.addLast(line);
        if (last.size() > 30) {
          last.removeFirst();
        }
        if (line.startsWith("PORT ")) {
          port = Integer.parseInt(line.substring(5).trim());
          context.runOnContext(v -> ready.tryComplete(this));
        }
      }
    } catch (IOException e) {
      LOG.debug("javasdk output ended: {}", e.toString());
    }
    String tail = String.join("\n", last);
    context.runOnContext(v -> ready.tryFail(new IllegalStateException("the Java SDK server exited before listening:\n" + tail)));
  }

  /** @return the MCP endpoint URL */
  public String url() {
    return "http://127.0.0.1:" + port + "/mcp";
  }

  /** Streamable HTTP options for this server. */
  public McpServerOptions options(String name) {
    return new McpServerOptions().setName(name).setUrl(url()).setTransport(McpServerOptions.Transport.HTTP);
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
