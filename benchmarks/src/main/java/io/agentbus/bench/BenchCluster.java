package io.agentbus.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster of {@code java -jar target/agentbus.jar serve --cluster} processes on loopback, as a
 * user starts one (issue 14): per node one {@code agent.json} (the shipped one plus a
 * {@code store} and a {@code cluster} object: a cluster name unique to this run, the node's own
 * Hazelcast member port, every node's port as the member list, the node's name) and one
 * {@code mcp.json}, and {@code --roles} when the node has not all three. Each node gets the
 * environment of {@link ServeSubject} (the mock as the Anthropic API, a free {@code AGENTBUS_PORT}).
 * {@link #start} returns once every node logged that it joined the cluster (and, with the
 * {@code http} role, that it listens), and every HTTP node's {@code GET /v1/tools} lists the
 * expected tools: the MCP servers' tools have reached the catalog cluster-wide. Logs go to a
 * temporary directory, kept with {@code BENCH_KEEP_LOGS}.
 */
final class BenchCluster implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BenchCluster.class);
  private static final Pattern LISTENING = Pattern.compile("Agentbus listening on http://([^:\\s]+):(\\d+)");
  private static final Pattern JOINED = Pattern.compile("Agentbus node \\S+ joined cluster");
  private static final long START_TIMEOUT_MS = 180_000;

  /**
   * One node.
   *
   * @param name the node name ({@code cluster.nodeName})
   * @param roles {@code --roles}, or null for the default (all three)
   * @param mcpServers the {@code mcpServers} object of its {@code mcp.json}
   * @param store its {@code store} object, or null for the shipped one
   */
  record NodeSpec(String name, String roles, JsonObject mcpServers, JsonObject store) {
    boolean http() {
      return roles == null || List.of(roles.split(",")).contains("http");
    }
  }

  /** A running node. */
  static final class Node {
    final NodeSpec spec;
    final Process process;
    final Path log;
    final CompletableFuture<Void> joined = new CompletableFuture<>();
    final CompletableFuture<Integer> listening = new CompletableFuture<>();
    private final Deque<String> tail = new ArrayDeque<>();

    private Node(NodeSpec spec, Process process, Path log) {
      this.spec = spec;
      this.process = process;
      this.log = log;
    }

    /** @return the port of its HTTP API (once listening) */
    int httpPort() {
      return listening.join();
    }

    synchronized String tail() {
      return String.join("\n", tail);
    }

    private synchronized void remember(String line) {
      tail.addLast(line);
      if (tail.size() > 20) {
        tail.removeFirst();
      }
    }
  }

  final String clusterName = "bench-" + UUID.randomUUID().toString().substring(0, 8);
  final Path dir;
  final List<Node> nodes = new ArrayList<>();

  BenchCluster() throws IOException {
    dir = Files.createTempDirectory("agentbus-cluster-bench");
  }

  /** Starts every node at once and waits until they are all up and every HTTP node lists {@code tools}. */
  void start(List<NodeSpec> specs, int mockPort, List<String> tools, Vertx vertx, HttpClient client) throws Exception {
    List<Integer> ports = new ArrayList<>();
    JsonArray members = new JsonArray();
    for (int i = 0; i < specs.size(); i++) {
      int p = ServeSubject.freePort();
      ports.add(p);
      members.add("127.0.0.1:" + p);
    }
    for (int i = 0; i < specs.size(); i++) {
      NodeSpec spec = specs.get(i);
      JsonObject agent = ServeSubject.shippedAgentConfig();
      if (spec.store() != null) {
        agent.put("store", spec.store());
      }
      agent.put("cluster", new JsonObject().put("name", clusterName).put("host", "127.0.0.1").put("port", ports.get(i))
        .put("members", members.copy()).put("nodeName", spec.name()));
      Path agentConfig = dir.resolve("agent-" + spec.name() + ".json");
      Files.writeString(agentConfig, agent.encodePrettily());
      Path mcpConfig = dir.resolve("mcp-" + spec.name() + ".json");
      Files.writeString(mcpConfig, new JsonObject().put("mcpServers", spec.mcpServers()).encodePrettily());
      List<String> cmd = ServeSubject.serveCommand();
      cmd.addAll(List.of("--config", agentConfig.toString(), "--mcp-config", mcpConfig.toString(), "--cluster"));
      if (spec.roles() != null) {
        cmd.addAll(List.of("--roles", spec.roles()));
      }
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(dir.resolve("stdout-" + spec.name() + ".log").toFile());
      ServeSubject.serveEnvironment(pb.environment(), mockPort, ServeSubject.freePort());
      Node node = new Node(spec, pb.start(), dir.resolve("stderr-" + spec.name() + ".log"));
      nodes.add(node);
      copyLog(node);
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
    for (Node n : nodes) {
      await(n, n.joined, deadline, "join the cluster");
      if (n.spec.http()) {
        await(n, n.listening, deadline, "listen");
      }
    }
    for (Node n : nodes) {
      if (n.spec.http()) {
        awaitTools(n, tools, deadline, client);
      }
    }
    LOG.info("cluster {} up: {}", clusterName, nodes.stream().map(n -> n.spec.name() + " (pid " + n.process.pid() + ", roles "
      + (n.spec.roles() == null ? "all" : n.spec.roles()) + ")").toList());
  }

  private static void await(Node n, CompletableFuture<?> f, long deadline, String what) throws Exception {
    try {
      f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("node " + n.spec.name() + " did not " + what + " (log: " + n.log + "):\n" + n.tail(), e);
    }
  }

  /** Polls {@code GET /v1/tools} until it names every tool in {@code tools}. */
  private static void awaitTools(Node n, List<String> tools, long deadline, HttpClient client) throws Exception {
    String last = "";
    while (System.nanoTime() - deadline < 0) {
      if (!n.process.isAlive()) {
        throw new IllegalStateException("node " + n.spec.name() + " exited (log: " + n.log + "):\n" + n.tail());
      }
      try {
        last = client.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(n.httpPort())
            .setURI("/v1/tools"))
          .compose(req -> req.send().compose(resp -> resp.body()))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).toString();
        String body = last;
        if (tools.stream().allMatch(t -> body.contains("\"" + t + "\""))) {
          return;
        }
      } catch (Exception e) {
        last = String.valueOf(e);
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("node " + n.spec.name() + ": GET /v1/tools never listed " + tools + "; last answer: "
      + (last.length() > 500 ? last.substring(0, 500) + "..." : last) + " (log: " + n.log + ")");
  }

  /** Copies a node's stderr to its log file, watching for the joined and listening lines. */
  private static void copyLog(Node n) {
    Thread copier = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(n.process.getErrorStream(), StandardCharsets.UTF_8));
           PrintStream out = new PrintStream(Files.newOutputStream(n.log), true, StandardCharsets.UTF_8)) {
        String line;
        while ((line = in.readLine()) != null) {
          out.println(line);
          n.remember(line);
          if (!n.joined.isDone() && JOINED.matcher(line).find()) {
            n.joined.complete(null);
          }
          Matcher m = LISTENING.matcher(line);
          if (!n.listening.isDone() && m.find()) {
            n.listening.complete(Integer.parseInt(m.group(2)));
          }
        }
      } catch (IOException e) {
        // the process is gone
      }
      IllegalStateException gone = new IllegalStateException("node " + n.spec.name() + " exited; see " + n.log);
      n.joined.completeExceptionally(gone);
      n.listening.completeExceptionally(gone);
    }, "serve-" + n.spec.name() + "-stderr");
    copier.setDaemon(true);
    copier.start();
  }

  /** @return every node's process by node name */
  Map<String, ProcessHandle> processes() {
    Map<String, ProcessHandle> all = new LinkedHashMap<>();
    nodes.forEach(n -> all.put(n.spec.name(), n.process.toHandle()));
    return all;
  }

  /** @return the running nodes with the http role */
  List<Node> httpNodes() {
    return nodes.stream().filter(n -> n.spec.http()).toList();
  }

  /** Sum of the nodes' live heaps (each after two full collections, see {@link ServeSubject#liveHeapBytes()}). */
  long liveHeapBytes() throws Exception {
    long sum = 0;
    for (Node n : nodes) {
      Path d = Files.createDirectories(dir.resolve("jcmd-" + n.spec.name()));
      sum += ServeSubject.liveHeapBytes(n.process, d);
    }
    return sum;
  }

  /** SIGTERM to every node at once (each drains and stops its MCP servers), SIGKILL after 30 s. */
  @Override
  public void close() throws Exception {
    nodes.forEach(n -> n.process.destroy());
    for (Node n : nodes) {
      if (!n.process.waitFor(30, TimeUnit.SECONDS)) {
        LOG.warn("node {} did not stop within 30 s of SIGTERM; killing it (log: {})", n.spec.name(), n.log);
        n.process.descendants().forEach(ProcessHandle::destroyForcibly);
        n.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    if (System.getenv("BENCH_KEEP_LOGS") == null) {
      try (var files = Files.walk(dir)) {
        for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      }
    } else {
      LOG.info("cluster logs kept in {}", dir);
    }
  }
}
