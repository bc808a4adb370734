package io.agentbus.bench;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.transport.stdio.StdioMcpTransport;
import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@code stdio-pipeline}: {@code noop} tool calls over one stdio connection to {@link
 * BenchMcpServer}, W in flight: calls per second, call latency, and this process' CPU per call
 * (the server is the child process). Agentbus' {@link McpClient} (Futures on one event loop)
 * and, as the peer, LangChain4j's {@code DefaultMcpClient} called from W threads. Options:
 * {@code --window 256 --seconds 10 --warmup-seconds 3 --subjects agentbus,langchain4j}.
 */
final class StdioPipelineScenario {

  static List<Row> run(Settings s) throws Exception {
    int window = s.integer("window", 256, 64);
    long seconds = s.number("seconds", 10, 2);
    long warmup = s.number("warmup-seconds", 3, 1);
    List<Row> rows = new ArrayList<>();
    for (String name : s.list("subjects", "agentbus,langchain4j", "agentbus,langchain4j")) {
      try (Subject subject = "langchain4j".equals(name) ? new Lc4jCalls(window) : new AgentbusCalls()) {
        subject.start();
        LoadDriver driver = new LoadDriver(subject);
        driver.run(Integer.MAX_VALUE, window, warmup * 1000);
        ProcessStats.liveHeapBytes();
        LoadDriver.Result r = driver.run(Integer.MAX_VALUE, window, seconds * 1000);
        Row row = Row.of("stdio-pipeline", subject.name(), window, r, 1.0);
        row.data.put("unit", "call").put("cpuUsPerCall", Row.round(row.data.getDouble("cpuMsPerUnit") * 1000, 2));
        rows.add(row);
      }
    }
    Row ours = rows.stream().filter(r -> "agentbus".equals(r.data.getString("subject"))).findFirst().orElse(null);
    Row peer = rows.stream().filter(r -> "langchain4j".equals(r.data.getString("subject"))).findFirst().orElse(null);
    if (ours != null && peer != null) {
      ours.data.put("peer", "langchain4j")
        .put("throughputVsPeer", Row.round(ours.data.getDouble("perSecond") / peer.data.getDouble("perSecond"), 3))
        .put("cpuFractionOfPeer", Row.round(ours.data.getDouble("cpuMsPerUnit") / peer.data.getDouble("cpuMsPerUnit"), 3));
    }
    return rows;
  }

  private static List<String> serverCommand() {
    return Child.javaCommand(BenchMcpServer.class, List.of("--tools", "1"));
  }

  /** Agentbus' MCP client, calls issued and completed on its event loop. */
  private static final class AgentbusCalls implements Subject {
    private final JsonObject noArgs = new JsonObject();
    private final CallOptions callOptions = new CallOptions().setTimeoutMs(60_000);
    private Vertx vertx;
    private McpClient client;

    @Override
    public String name() {
      return "agentbus";
    }

    @Override
    public void start() throws Exception {
      vertx = Vertx.vertx();
      List<String> cmd = serverCommand();
      McpServerOptions options = new McpServerOptions().setName("bench").setCommand(cmd.get(0))
        .setArgs(cmd.subList(1, cmd.size())).setMaxPendingRequests(65_536);
      client = McpClient.create(vertx, options);
      client.connect().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    @Override
    public CompletionStage<?> conversation(int i) {
      return client.callTool("noop", noArgs, callOptions).toCompletionStage();
    }

    @Override
    public void close() throws Exception {
      if (client != null) {
        client.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
      if (vertx != null) {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** LangChain4j's MCP client, blocking calls from a pool of W threads. */
  private static final class Lc4jCalls implements Subject {
    private final int window;
    private final ToolExecutionRequest request = ToolExecutionRequest.builder().id("1").name("noop").arguments("{}").build();
    private ExecutorService threads;
    private DefaultMcpClient client;

    Lc4jCalls(int window) {
      this.window = window;
    }

    @Override
    public String name() {
      return "langchain4j";
    }

    @Override
    public void start() {
      threads = Executors.newFixedThreadPool(window);
      client = new DefaultMcpClient.Builder().transport(new StdioMcpTransport.Builder().command(serverCommand())
        .logEvents(false).build()).toolExecutionTimeout(Duration.ofMinutes(1)).build();
    }

    @Override
    public CompletionStage<?> conversation(int i) {
      return CompletableFuture.runAsync(() -> {
        if (client.executeTool(request).isError()) {
          throw new IllegalStateException("noop failed");
        }
      }, threads);
    }

    @Override
    public void close() throws Exception {
      if (client != null) {
        client.close();
      }
      if (threads != null) {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }
}
