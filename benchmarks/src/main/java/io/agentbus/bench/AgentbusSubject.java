package io.agentbus.bench;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.model.ModelOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Agentbus embedded in-process and driven over the event bus ({@link Agentbus#createConversation},
 * {@link Agentbus#send}, {@link Agentbus#delete}): the real conversation, dispatcher, catalog and
 * MCP server verticles, the real model client against the mock over HTTP, the bench MCP server
 * as a stdio child process (or over Streamable HTTP).
 */
class AgentbusSubject implements Subject {

  static final String SERVER = "bench";
  final Workload workload;
  final int maxInFlight;
  final JsonObject createBody;
  private final int mockPort;
  private final boolean http2;
  private final boolean stream;
  private final Integer httpMcpPort;
  Vertx vertx;
  private Agentbus agentbus;

  /**
   * @param httpMcpPort the port of the HTTP bench MCP server when {@code workload.mcp()} is http
   * @param http2 model client over HTTP/2 (h2c) instead of one HTTP/1.1 connection per call
   * @param stream model replies streamed (SSE, Agentbus' default) rather than plain JSON (what
   *     the peer's {@code ChatModel} does)
   */
  AgentbusSubject(Workload workload, int mockPort, int maxInFlight, boolean http2, boolean stream, Integer httpMcpPort) {
    this.workload = workload;
    this.mockPort = mockPort;
    this.maxInFlight = maxInFlight;
    this.http2 = http2;
    this.stream = stream;
    this.httpMcpPort = httpMcpPort;
    this.createBody = createBody(workload);
  }

  /** @return the create body offering exactly the workload's K tools {@code t0..t<K-1>} */
  static JsonObject createBody(Workload workload) {
    JsonArray offered = new JsonArray();
    for (int i = 0; i < workload.offered(); i++) {
      offered.add("mcp__" + SERVER + "__t" + i);
    }
    return new JsonObject().put("tools", offered);
  }

  @Override
  public String name() {
    return "agentbus" + (stream ? "-sse" : "") + (http2 ? "-h2" : "");
  }

  @Override
  public void start() throws Exception {
    vertx = Vertx.vertx();
    int calls = Math.max(64, maxInFlight * workload.k());
    McpServerOptions server = new McpServerOptions().setName(SERVER)
      .setMaxConcurrentCalls(calls).setMaxQueuedCalls(calls).setMaxPendingRequests(calls + 64);
    if ("http".equals(workload.mcp())) {
      server.setTransport(McpServerOptions.Transport.HTTP).setUrl("http://127.0.0.1:" + httpMcpPort + "/mcp");
    } else {
      List<String> cmd = Child.javaCommand(BenchMcpServer.class, benchServerArgs(workload));
      server.setCommand(cmd.get(0)).setArgs(cmd.subList(1, cmd.size()));
    }
    ModelOptions model = new ModelOptions().setProvider(ModelOptions.ANTHROPIC).setApiKey("bench-key")
      .setBaseUrl("http://127.0.0.1:" + mockPort).setModel("claude-sonnet-4-5").setMaxRetries(0)
      .setMaxConnections(Math.max(16, maxInFlight)).setMaxWaitQueueSize(Math.max(4096, 4 * maxInFlight)).setHttp2(http2);
    AgentbusOptions options = new AgentbusOptions().addMcpServer(server)
      .setConversation(new ConversationOptions().setModel(model).setMaxTokens(1024).setStream(stream));
    agentbus = Agentbus.deploy(vertx, options).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /** The bench MCP server's arguments: the workload's tools, reporting its timer lateness to the harness. */
  static List<String> benchServerArgs(Workload w) {
    List<String> args = new ArrayList<>(List.of("--tools", String.valueOf(Math.max(8, w.offered())), "--latency-ms",
      String.valueOf(w.toolMs()), "--plain-tools", String.valueOf(w.k())));
    args.addAll(FloorProbe.listener().args());
    return args;
  }

  @Override
  public CompletionStage<?> conversation(int i) {
    return agentbus.createConversation(createBody.copy())
      .compose(id -> agentbus.send(id, "Conversation " + i + ": call the tools, then answer.")
        .compose(result -> {
          String problem = checkTurn(result);
          return problem != null ? Future.failedFuture(problem) : agentbus.delete(id);
        }))
      .toCompletionStage();
  }

  /** @return why a turn result is not the expected one, or null */
  String checkTurn(JsonObject result) {
    return checkTurn(result, workload.k());
  }

  /**
   * @return why a turn result is not the expected one (status, number of tool calls, any tool
   *     result the model got as an error: a failure of the run, not throughput), or null
   */
  static String checkTurn(JsonObject result, int k) {
    JsonArray toolCalls = result.getJsonArray("toolCalls", new JsonArray());
    long failedTools = toolCalls.stream().filter(c -> c instanceof JsonObject o && o.getBoolean("isError", false)).count();
    if (!"end_turn".equals(result.getString("status")) || toolCalls.size() != k || failedTools > 0) {
      return "unexpected turn result: status " + result.getString("status") + ", " + toolCalls.size() + " tool calls, "
        + failedTools + " failed";
    }
    return null;
  }

  @Override
  public void close() throws Exception {
    if (vertx != null) {
      if (agentbus != null) {
        agentbus.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
