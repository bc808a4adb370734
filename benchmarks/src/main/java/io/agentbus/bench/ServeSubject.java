package io.agentbus.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The headline subject: Agentbus as a user runs it. {@code java -jar target/agentbus.jar serve}
 * in its own process, from the project directory (so the shipped {@code conf/agent.json}
 * applies), with nothing added but the mock's URL and a key in the environment
 * ({@code ANTHROPIC_BASE_URL}, {@code ANTHROPIC_API_KEY}), an ephemeral port
 * ({@code AGENTBUS_PORT=0}) and an {@code --mcp-config} naming the bench MCP server: no tuning,
 * streaming on (the default), no JVM options. This process drives it over HTTP (per
 * conversation: create, send with a JSON answer, delete) from a Vert.x {@link HttpClient} with a
 * pool of C connections. The runtime CPU reported is the {@code serve} process' alone
 * ({@link #runtimeProcess()}); the driver's is reported beside it.
 *
 * <p>{@code BENCH_SERVE_JAVA} names the java to run it with (default: {@code java} on the
 * PATH, what a user types); {@code BENCH_SERVE_JVM_OPTS} adds JVM options (for profiling);
 * {@code BENCH_SERVE_JAR} runs another build (default {@code target/agentbus.jar}), to compare
 * two builds in one sitting.
 */
final class ServeSubject implements Subject {

  private static final Pattern LISTENING = Pattern.compile("Agentbus listening on http://([^:\\s]+):(\\d+)");
  private static final String SERVER = AgentbusSubject.SERVER;
  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)([KMG])");

  private final Workload workload;
  private final int mockPort;
  private final int maxInFlight;
  private final Integer httpMcpPort;
  private final boolean sseApi;
  private final JsonObject createBody;
  private Path dir;
  private Process process;
  private Vertx vertx;
  private HttpClient client;
  private int port;

  /**
   * @param sseApi the driver asks for the turn as Server-Sent Events ({@code Accept:
   *     text/event-stream}, a chat front end's way) instead of one JSON answer
   */
  ServeSubject(Workload workload, int mockPort, int maxInFlight, Integer httpMcpPort, boolean sseApi) {
    this.workload = workload;
    this.mockPort = mockPort;
    this.maxInFlight = maxInFlight;
    this.httpMcpPort = httpMcpPort;
    this.sseApi = sseApi;
    this.createBody = AgentbusSubject.createBody(workload);
  }

  @Override
  public String name() {
    return sseApi ? "serve-sse" : "serve";
  }

  @Override
  public ProcessHandle runtimeProcess() {
    return process == null ? null : process.toHandle();
  }

  /**
   * Live heap of the {@code serve} process: {@code jcmd PID GC.run} twice, then the used heap
   * from {@code GC.heap_info} (jcmd of the same JDK as the process).
   */
  @Override
  public long liveHeapBytes() throws Exception {
    Path java = Path.of(process.info().command().orElseThrow());
    String jcmd = java.resolveSibling("jcmd").toString();
    long pid = process.pid();
    jcmd(jcmd, pid, "GC.run");
    jcmd(jcmd, pid, "GC.run");
    Matcher m = HEAP_USED.matcher(jcmd(jcmd, pid, "GC.heap_info"));
    if (!m.find()) {
      throw new IllegalStateException("no 'used' figure in jcmd GC.heap_info of " + pid);
    }
    long v = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "G" -> v << 30;
      case "M" -> v << 20;
      default -> v << 10;
    };
  }

  private static String jcmd(String jcmd, long pid, String command) throws Exception {
    Process p = new ProcessBuilder(jcmd, String.valueOf(pid), command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(jcmd + " " + pid + " " + command + " failed: " + out);
    }
    return out;
  }

  @Override
  public void start() throws Exception {
    dir = Files.createTempDirectory("agentbus-serve-bench");
    JsonObject server = "http".equals(workload.mcp())
      ? new JsonObject().put("url", "http://127.0.0.1:" + httpMcpPort + "/mcp")
      : command(Child.javaCommand(BenchMcpServer.class, AgentbusSubject.benchServerArgs(workload)));
    Path mcpConfig = dir.resolve("mcp.json");
    Files.writeString(mcpConfig, new JsonObject().put("mcpServers", new JsonObject().put(SERVER, server)).encodePrettily());
    Path jar = Path.of(System.getenv().getOrDefault("BENCH_SERVE_JAR", "target/agentbus.jar")).toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build it with mvn -B -q package -DskipTests");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getenv().getOrDefault("BENCH_SERVE_JAVA", "java"));
    String opts = System.getenv("BENCH_SERVE_JVM_OPTS");
    if (opts != null && !opts.isBlank()) {
      cmd.addAll(List.of(opts.trim().split("\\s+")));
    }
    cmd.addAll(List.of("-jar", jar.toString(), "serve", "--mcp-config", mcpConfig.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(dir.resolve("stdout.log").toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("AGENTBUS_") || k.startsWith("OPENAI_") || k.startsWith("ANTHROPIC_"));
    env.put("ANTHROPIC_API_KEY", "bench-key");
    env.put("ANTHROPIC_BASE_URL", "http://127.0.0.1:" + mockPort);
    env.put("AGENTBUS_PORT", "0");
    process = pb.start();
    port = awaitListening(process, dir.resolve("stderr.log"));
    vertx = Vertx.vertx();
    client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
      new PoolOptions().setHttp1MaxSize(Math.max(16, maxInFlight)).setMaxWaitQueueSize(-1));
  }

  private static JsonObject command(List<String> cmd) {
    return new JsonObject().put("command", cmd.get(0)).put("args", new JsonArray(new ArrayList<>(cmd.subList(1, cmd.size()))));
  }

  /** Copies the process' stderr to a log file and returns the port of its "listening" line. */
  private static int awaitListening(Process p, Path log) throws Exception {
    CompletableFuture<Integer> listening = new CompletableFuture<>();
    Thread copier = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
           PrintStream out = new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8)) {
        String line;
        while ((line = in.readLine()) != null) {
          out.println(line);
          Matcher m = LISTENING.matcher(line);
          if (!listening.isDone() && m.find()) {
            listening.complete(Integer.parseInt(m.group(2)));
          }
        }
      } catch (IOException e) {
        listening.completeExceptionally(e);
      }
      listening.completeExceptionally(new IllegalStateException("serve exited before listening; see " + log));
    }, "serve-stderr");
    copier.setDaemon(true);
    copier.start();
    try {
      return listening.get(120, TimeUnit.SECONDS);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new IllegalStateException("serve did not start: " + e.getMessage() + " (log: " + log + ")", e);
    }
  }

  private Future<JsonObject> call(HttpMethod method, String uri, JsonObject body, int expected) {
    RequestOptions ro = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri)
      .putHeader("content-type", "application/json");
    if (sseApi && uri.endsWith("/messages")) {
      ro.putHeader("accept", "text/event-stream");
    }
    return client.request(ro)
      .compose(req -> body == null ? req.send() : req.send(body.toBuffer()))
      .compose(resp -> resp.body().compose(b -> {
        if (resp.statusCode() != expected) {
          return Future.failedFuture(method + " " + uri + ": HTTP " + resp.statusCode() + " " + b);
        }
        if (b.length() == 0) {
          return Future.succeededFuture(new JsonObject());
        }
        return Future.succeededFuture(sseApi && uri.endsWith("/messages") ? lastDone(b.toString()) : b.toJsonObject());
      }));
  }

  /** The turn result carried by the stream's {@code done} event. */
  private static JsonObject lastDone(String stream) {
    int at = stream.lastIndexOf("event: done\ndata: ");
    if (at < 0) {
      return new JsonObject().put("status", "no done event");
    }
    int start = at + "event: done\ndata: ".length();
    JsonObject done = new JsonObject(stream.substring(start, stream.indexOf('\n', start)));
    return done.getJsonObject("result", done);
  }

  @Override
  public CompletionStage<?> conversation(int i) {
    return call(HttpMethod.POST, "/v1/conversations", createBody.copy(), 201)
      .compose(created -> {
        String path = "/v1/conversations/" + created.getString("id");
        return call(HttpMethod.POST, path + "/messages",
          new JsonObject().put("content", "Conversation " + i + ": call the tools, then answer."), 200)
          .compose(result -> {
            String problem = AgentbusSubject.checkTurn(result, workload.k());
            return problem != null ? Future.failedFuture(problem) : call(HttpMethod.DELETE, path, null, 204);
          });
      })
      .toCompletionStage();
  }

  @Override
  public void close() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    if (process != null) {
      process.destroy(); // SIGTERM: serve drains and stops its MCP server
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    if (dir != null && System.getenv("BENCH_KEEP_LOGS") == null) {
      try (var files = Files.list(dir)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(dir);
    }
  }
}
