package io.agentbus.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A helper JVM started from this jar's classpath (mock model server, HTTP MCP server): waits
 * for its {@code READY <port>} line; closing stdin stops it. Every fixture JVM (these, and the
 * stdio bench MCP server the subjects spawn) runs on {@link #fixtureJvmOptions()}.
 */
final class Child implements AutoCloseable {

  private final Process process;
  private final int port;

  private Child(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The java command line that runs {@code mainClass} from this jar's classpath. */
  static List<String> javaCommand(Class<?> mainClass, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(fixtureJvmOptions());
    cmd.add("-Xss512k");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass.getName());
    cmd.addAll(args);
    return cmd;
  }

  /**
   * The fixtures' GC, so that their pauses do not count as the subject's latency: generational
   * ZGC when this JDK has it ({@code -XX:+UseZGC -XX:+ZGenerational} on 21-22, where ZGC is not
   * yet generational by default; {@code -XX:+UseZGC} from 23), else {@code -XX:+UseSerialGC}.
   * {@code BENCH_FIXTURE_JVM_OPTS} replaces them (e.g. to compare with {@code -XX:+UseSerialGC}).
   */
  static List<String> fixtureJvmOptions() {
    String env = System.getenv("BENCH_FIXTURE_JVM_OPTS");
    if (env != null && !env.isBlank()) {
      return List.of(env.trim().split("\\s+"));
    }
    int feature = Runtime.version().feature();
    if (feature >= 23) {
      return List.of("-XX:+UseZGC");
    }
    return feature >= 21 ? List.of("-XX:+UseZGC", "-XX:+ZGenerational") : List.of("-XX:+UseSerialGC");
  }

  static Child start(Class<?> mainClass, List<String> args) throws IOException {
    Process p = new ProcessBuilder(javaCommand(mainClass, args)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith("READY ")) {
        return new Child(p, Integer.parseInt(line.substring(6).trim()));
      }
    }
    p.destroyForcibly();
    throw new IOException(mainClass.getSimpleName() + " exited before it was ready");
  }

  int port() {
    return port;
  }

  @Override
  public void close() throws Exception {
    process.getOutputStream().close();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
  }
}
