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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Agentbus as a cluster of {@code serve --cluster} processes on this machine ({@link BenchCluster}),
 * driven over HTTP like {@link ServeSubject} (per conversation create, send with a JSON answer,
 * delete, all three on one node), conversation {@code i} on HTTP node {@code i mod n}. The
 * runtime CPU is the sum of every node's process ({@link #runtimeProcesses()}); the MCP
 * servers the nodes spawn are fixtures (child CPU), as for {@code serve}.
 *
 * <ul>
 *   <li>{@code serve-cluster1}: one node with all three roles;</li>
 *   <li>{@code serve-cluster3}: node A {@code --roles mcp} runs the bench MCP server, nodes B and C
 *   {@code --roles http,conversation} take the conversations and call A's tools over the
 *   clustered event bus.</li>
 * </ul>
 * Every node has the same {@code store} (the subjects use {@code serve-postgres}'s) and the same
 * {@code mcp.json} unless the caller gives node-specific ones (the MCP servers run only on
 * nodes with the {@code mcp} role). {@link #offer} switches the tools the following conversations
 * offer ({@link ClusterToolScenario}: the same tools served on the conversation's node or on
 * another).
 */
final class ClusterServeSubject implements Subject {

  private final String name;
  private final List<BenchCluster.NodeSpec> specs;
  private final int mockPort;
  private final int maxInFlight;
  private final long requestTimeoutMs;
  private final List<String> awaitTools;
  private volatile JsonObject createBody;
  private volatile int k;
  private BenchCluster cluster;
  private Vertx vertx;
  private HttpClient client;
  private int[] httpPorts;

  /**
   * @param specs the nodes
   * @param awaitTools tool names every HTTP node's catalog must list before the subject is up
   * @param createBody the conversations' create body (the tools offered), K of them called per turn
   */
  ClusterServeSubject(String name, List<BenchCluster.NodeSpec> specs, Workload workload, int mockPort, int maxInFlight,
                      List<String> awaitTools, JsonObject createBody) {
    this.name = name;
    this.specs = specs;
    this.mockPort = mockPort;
    this.maxInFlight = maxInFlight;
    this.awaitTools = awaitTools;
    this.createBody = createBody;
    this.k = createBody.getJsonArray("tools").size();
    this.requestTimeoutMs = Math.max(120_000, 5 * workload.injectedMs());
  }

  /** {@code serve-cluster1} or {@code serve-cluster3} of the throughput cell (issue 14). */
  static ClusterServeSubject of(String name, Workload w, int mockPort, int maxInFlight, Integer httpMcpPort, JsonObject store) {
    JsonObject mcp = new JsonObject().put(AgentbusSubject.SERVER, ServeSubject.benchServer(w, httpMcpPort));
    List<BenchCluster.NodeSpec> specs = switch (name) {
      case "serve-cluster1" -> List.of(new BenchCluster.NodeSpec("A", null, mcp, store));
      case "serve-cluster3" -> List.of(new BenchCluster.NodeSpec("A", "mcp", mcp, store),
        new BenchCluster.NodeSpec("B", "http,conversation", mcp, store),
        new BenchCluster.NodeSpec("C", "http,conversation", mcp, store));
      default -> throw new IllegalArgumentException(name);
    };
    JsonObject body = AgentbusSubject.createBody(w);
    List<String> tools = body.getJsonArray("tools").stream().map(String::valueOf).toList();
    return new ClusterServeSubject(name, specs, w, mockPort, maxInFlight, tools, body);
  }

  /** The following conversations offer {@code tools} (and so call them all). */
  void offer(List<String> tools) {
    this.createBody = createBody(tools);
    this.k = tools.size();
  }

  static JsonObject createBody(List<String> tools) {
    return new JsonObject().put("tools", new JsonArray(new ArrayList<>(tools)));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void start() throws Exception {
    vertx = Vertx.vertx();
    client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
      new PoolOptions().setHttp1MaxSize(Math.max(16, maxInFlight)).setMaxWaitQueueSize(-1));
    cluster = new BenchCluster();
    cluster.start(specs, mockPort, awaitTools, vertx, client);
    httpPorts = cluster.httpNodes().stream().mapToInt(BenchCluster.Node::httpPort).toArray();
  }

  @Override
  public Map<String, ProcessHandle> runtimeProcesses() {
    return cluster == null ? Map.of() : cluster.processes();
  }

  @Override
  public boolean usesPostgres() {
    return specs.stream().anyMatch(s -> s.store() != null && "postgres".equals(s.store().getString("type")));
  }

  @Override
  public long liveHeapBytes() throws Exception {
    return cluster.liveHeapBytes();
  }

  private Future<JsonObject> call(int port, HttpMethod method, String uri, JsonObject body, int expected) {
    RequestOptions ro = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri)
      .putHeader("content-type", "application/json").setConnectTimeout(requestTimeoutMs).setIdleTimeout(requestTimeoutMs);
    // body() inside send's continuation (on the event loop): see ServeSubject.call
    return client.request(ro)
      .compose(req -> (body == null ? req.send() : req.send(body.toBuffer())).compose(resp -> resp.body().compose(b -> {
        if (resp.statusCode() != expected) {
          return Future.failedFuture(method + " " + uri + " on :" + port + ": HTTP " + resp.statusCode() + " " + b);
        }
        return Future.succeededFuture(b.length() == 0 ? new JsonObject() : b.toJsonObject());
      })));
  }

  @Override
  public CompletionStage<?> conversation(int i) {
    return conversation(i, createBody, k);
  }

  /** Conversation {@code i} offering the tools of {@code body}, {@code tools} of them called in its turn. */
  CompletionStage<?> conversation(int i, JsonObject body, int tools) {
    int port = httpPorts[Math.floorMod(i, httpPorts.length)];
    return call(port, HttpMethod.POST, "/v1/conversations", body.copy(), 201)
      .compose(created -> {
        String path = "/v1/conversations/" + created.getString("id");
        return call(port, HttpMethod.POST, path + "/messages",
          new JsonObject().put("content", "Conversation " + i + ": call the tools, then answer."), 200)
          .compose(result -> {
            String problem = AgentbusSubject.checkTurn(result, tools);
            return problem != null ? Future.failedFuture(problem) : call(port, HttpMethod.DELETE, path, null, 204);
          });
      })
      .toCompletionStage();
  }

  @Override
  public void close() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    if (cluster != null) {
      cluster.close();
    }
  }
}
