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
import java.net.InetAddress;
import java.net.ServerSocket;
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
 * ({@code ANTHROPIC_BASE_URL}, {@code ANTHROPIC_API_KEY}), a free port found beforehand
 * ({@code AGENTBUS_PORT}; not 0, with which each of serve's per-loop HTTP listeners binds a port
 * of its own and only the logged one would get the load) and an {@code --mcp-config} naming the
 * bench MCP server: no tuning,
 * streaming on (the default), no JVM options. This process drives it over HTTP (per
 * conversation: create, send with a JSON answer, delete) from a Vert.x {@link HttpClient} with a
 * pool of C connections. The runtime CPU reported is the {@code serve} process' alone
 * ({@link #runtimeProcess()}); the driver's is reported beside it.
 *
 * <p>{@code BENCH_SERVE_JAVA} names the java to run it with (default: {@code java} on the
 * PATH, what a user types); {@code BENCH_SERVE_JVM_OPTS} adds JVM options (for profiling);
 * {@code BENCH_SERVE_JAR} runs another build (default {@code target/agentbus.jar}), to compare
 * two builds in one sitting. {@code serve-b} is the same subject with {@code BENCH_SERVE_B_JAR}
 * and {@code BENCH_SERVE_B_JVM_OPTS}, so that two builds or two JVM settings alternate within
 * one run ({@code --subjects serve-b,serve --repeat 2}) and their ratio is one run's.
 *
 * <p>The store variants ({@code serve-memory}, {@code serve-postgres}) run the same with the
 * shipped {@code conf/agent.json} plus one {@code store} object, passed as {@code --config}: the
 * conversation store is the only difference from {@code serve} (whose store is the shipped
 * default, SQLite in {@code data/agentbus.db}).
 */
final class ServeSubject implements Subject {

  private static final Pattern LISTENING = Pattern.compile("Agentbus listening on http://([^:\\s]+):(\\d+)");
  private static final String SERVER = AgentbusSubject.SERVER;
  /** "used 1234K" in GC.heap_info: the whole heap (G1, ZGC) or one line per generation (Serial, Parallel). */
  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)([KMG])");

  private final Workload workload;
  private final int mockPort;
  private final int maxInFlight;
  private final Integer httpMcpPort;
  private final boolean sseApi;
  private final JsonObject createBody;
  private final long requestTimeoutMs;
  private final String variant;
  private final JsonObject store;
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
    this(workload, mockPort, maxInFlight, httpMcpPort, sseApi, null, null);
  }

  /**
   * @param variant the name's suffix ({@code memory}, {@code postgres}), or {@code null}
   * @param store the {@code store} object to run with, or {@code null} for the shipped config
   */
  ServeSubject(Workload workload, int mockPort, int maxInFlight, Integer httpMcpPort, boolean sseApi, String variant,
               JsonObject store) {
    this.variant = variant;
    this.store = store;
    this.workload = workload;
    this.mockPort = mockPort;
    this.maxInFlight = maxInFlight;
    this.httpMcpPort = httpMcpPort;
    this.sseApi = sseApi;
    this.createBody = AgentbusSubject.createBody(workload);
    this.requestTimeoutMs = Math.max(120_000, 5 * workload.injectedMs());
  }

  @Override
  public String name() {
    return (sseApi ? "serve-sse" : "serve") + (variant == null ? "" : "-" + variant);
  }

  @Override
  public ProcessHandle runtimeProcess() {
    return process == null ? null : process.toHandle();
  }

  /**
   * Live heap of the {@code serve} process: one {@code jcmd PID -f FILE} (jcmd of the same JDK as
   * the process) running {@code GC.run} twice, then {@code GC.heap_info}: the used heap, summed
   * over the generations (everything before the Metaspace lines).
   */
  @Override
  public long liveHeapBytes() throws Exception {
    return liveHeapBytes(process, dir);
  }

  @Override
  public boolean usesPostgres() {
    return "postgres".equals(variant);
  }

  /** The live heap of one {@code serve} process (see {@link #liveHeapBytes()}); {@code dir} holds the jcmd script. */
  static long liveHeapBytes(Process process, Path dir) throws Exception {
    Path java = Path.of(process.info().command().orElseThrow());
    String jcmd = java.resolveSibling("jcmd").toString();
    Path commands = dir.resolve("jcmd.txt");
    Files.writeString(commands, "GC.run\nGC.run\nGC.heap_info\n");
    long pid = process.pid();
    Process p = new ProcessBuilder(jcmd, String.valueOf(pid), "-f", commands.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(jcmd + " " + pid + " -f " + commands + " failed: " + out);
    }
    int metaspace = out.indexOf("Metaspace");
    Matcher m = HEAP_USED.matcher(metaspace < 0 ? out : out.substring(0, metaspace));
    long bytes = 0;
    boolean found = false;
    while (m.find()) {
      found = true;
      long v = Long.parseLong(m.group(1));
      bytes += switch (m.group(2)) {
        case "G" -> v << 30;
        case "M" -> v << 20;
        default -> v << 10;
      };
    }
    if (!found) {
      throw new IllegalStateException("no 'used' figure in jcmd GC.heap_info of " + pid + ": " + out);
    }
    return bytes;
  }

  @Override
  public void start() throws Exception {
    dir = Files.createTempDirectory("agentbus-serve-bench");
    Path mcpConfig = dir.resolve("mcp.json");
    Files.writeString(mcpConfig, new JsonObject().put("mcpServers", new JsonObject()
      .put(SERVER, benchServer(workload, httpMcpPort))).encodePrettily());
    List<String> cmd = serveCommand("b".equals(variant) ? "BENCH_SERVE_B_" : "BENCH_SERVE_");
    cmd.addAll(List.of("--mcp-config", mcpConfig.toString()));
    if (store != null) {
      Path agentConfig = dir.resolve("agent.json");
      Files.writeString(agentConfig, shippedAgentConfig().put("store", store).encodePrettily());
      cmd.addAll(List.of("--config", agentConfig.toString()));
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(dir.resolve("stdout.log").toFile());
    serveEnvironment(pb.environment(), mockPort, freePort());
    process = pb.start();
    port = awaitListening(process, dir.resolve("stderr.log"));
    vertx = Vertx.vertx();
    client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
      new PoolOptions().setHttp1MaxSize(Math.max(16, maxInFlight)).setMaxWaitQueueSize(-1));
  }

  /** The bench MCP server's entry of an {@code mcp.json}: the stdio child, or the HTTP one's URL. */
  static JsonObject benchServer(Workload workload, Integer httpMcpPort) {
    return "http".equals(workload.mcp())
      ? new JsonObject().put("url", "http://127.0.0.1:" + httpMcpPort + "/mcp")
      : command(Child.javaCommand(BenchMcpServer.class, AgentbusSubject.benchServerArgs(workload)));
  }

  /** @return the shipped {@code conf/agent.json} (empty when absent), to add one object to */
  static JsonObject shippedAgentConfig() throws IOException {
    Path shipped = Path.of("conf/agent.json");
    return Files.exists(shipped) ? new JsonObject(Files.readString(shipped)) : new JsonObject();
  }

  /**
   * @return {@code java [BENCH_SERVE_JVM_OPTS] -jar <BENCH_SERVE_JAR or target/agentbus.jar> serve},
   *     a mutable list to add options to
   */
  static List<String> serveCommand() {
    return serveCommand("BENCH_SERVE_");
  }

  /**
   * @param prefix {@code BENCH_SERVE_}, or {@code BENCH_SERVE_B_} for {@code serve-b}: its own
   *     {@code JAR} and {@code JVM_OPTS} (the java is always {@code BENCH_SERVE_JAVA}'s)
   * @return {@code java [<prefix>JVM_OPTS] -jar <<prefix>JAR or target/agentbus.jar> serve}
   */
  static List<String> serveCommand(String prefix) {
    Path jar = Path.of(System.getenv().getOrDefault(prefix + "JAR", "target/agentbus.jar")).toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build it with mvn -B -q package -DskipTests");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getenv().getOrDefault("BENCH_SERVE_JAVA", "java"));
    String opts = System.getenv(prefix + "JVM_OPTS");
    if (opts != null && !opts.isBlank()) {
      cmd.addAll(List.of(opts.trim().split("\\s+")));
    }
    cmd.addAll(List.of("-jar", jar.toString(), "serve"));
    return cmd;
  }

  /**
   * A {@code serve} process' environment: none of the caller's {@code AGENTBUS_*}, {@code OPENAI_*},
   * {@code ANTHROPIC_*}; the mock as the Anthropic API, a key, and the HTTP port.
   */
  static void serveEnvironment(Map<String, String> env, int mockPort, int httpPort) {
    env.keySet().removeIf(k -> k.startsWith("AGENTBUS_") || k.startsWith("OPENAI_") || k.startsWith("ANTHROPIC_"));
    env.put("ANTHROPIC_API_KEY", "bench-key");
    env.put("ANTHROPIC_BASE_URL", "http://127.0.0.1:" + mockPort);
    env.put("AGENTBUS_PORT", String.valueOf(httpPort));
  }

  static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
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
    // Bounded: a request that gets no connection or no answer fails the conversation instead of hanging the run.
    RequestOptions ro = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri)
      .putHeader("content-type", "application/json").setConnectTimeout(requestTimeoutMs).setIdleTimeout(requestTimeoutMs);
    if (sseApi && uri.endsWith("/messages")) {
      ro.putHeader("accept", "text/event-stream");
    }
    // The body is asked for inside send's continuation, which runs on the connection's event loop:
    // chained after it instead, from a thread that is not an event loop (the ramp), the response
    // could end before body() is called, and that conversation would never complete.
    return client.request(ro)
      .compose(req -> (body == null ? req.send() : req.send(body.toBuffer())).compose(resp -> resp.body().compose(b -> {
        if (resp.statusCode() != expected) {
          return Future.failedFuture(method + " " + uri + ": HTTP " + resp.statusCode() + " " + b);
        }
        if (b.length() == 0) {
          return Future.succeededFuture(new JsonObject());
        }
        return Future.succeededFuture(sseApi && uri.endsWith("/messages") ? lastDone(b.toString()) : b.toJsonObject());
      })));
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
