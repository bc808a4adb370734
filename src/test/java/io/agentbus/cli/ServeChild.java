package io.agentbus.cli;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code agentbus serve} in a separate JVM, as users run it (no API key: demo model), with its
 * output lines collected; {@link #await} completes when a line matching a pattern shows up.
 */
final class ServeChild {

  final Process process;
  final List<String> lines = new CopyOnWriteArrayList<>();
  private final Vertx vertx;
  private final Map<Pattern, Promise<Matcher>> waiting = new ConcurrentHashMap<>();

  private ServeChild(Vertx vertx, Process process) {
    this.vertx = vertx;
    this.process = process;
  }

  static ServeChild spawn(Vertx vertx, Path agent, Path mcp) throws Exception {
    return start(vertx, List.of("-cp", System.getProperty("java.class.path"), AgentMain.class.getName()), agent, mcp);
  }

  /**
   * As {@link #spawn(Vertx, Path, Path)}, but from the built {@code target/agentbus.jar} (what a
   * user runs: the shaded jar, with its own service registrations), with {@code jvmOptions}.
   */
  static ServeChild spawnJar(Vertx vertx, Path agent, Path mcp, List<String> jvmOptions) throws Exception {
    List<String> launch = new ArrayList<>(jvmOptions);
    launch.addAll(List.of("-jar", Path.of("target", "agentbus.jar").toAbsolutePath().toString()));
    return start(vertx, launch, agent, mcp);
  }

  private static ServeChild start(Vertx vertx, List<String> launch, Path agent, Path mcp) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(launch);
    cmd.addAll(List.of("serve", "--config", agent.toString(), "--mcp-config", mcp.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("ANTHROPIC_API_KEY");
    pb.environment().remove("OPENAI_API_KEY");
    pb.environment().remove("AGENTBUS_PORT");
    ServeChild child = new ServeChild(vertx, pb.start());
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(child.process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          child.add(line);
        }
      } catch (Exception e) {
        child.add("reader ended: " + e);
      }
    }, "serve-output");
    reader.setDaemon(true);
    reader.start();
    return child;
  }

  /** Completes with the first output line (already seen or to come) that matches. */
  Future<Matcher> await(String regex) {
    Promise<Matcher> p = Promise.promise();
    Pattern pattern = Pattern.compile(regex);
    waiting.put(pattern, p);
    for (String line : lines) {
      Matcher m = pattern.matcher(line);
      if (m.find()) {
        p.tryComplete(m);
      }
    }
    return p.future();
  }

  private void add(String line) {
    lines.add(line);
    waiting.forEach((pattern, p) -> {
      Matcher m = pattern.matcher(line);
      if (m.find()) {
        vertx.runOnContext(v -> p.tryComplete(m));
      }
    });
  }

  String output() {
    return String.join("\n", lines);
  }

  /** Kills the child and everything it started. */
  void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
