package io.agentbus.bench;

import dev.langchain4j.http.client.jdk.JdkHttpClientBuilder;
import dev.langchain4j.mcp.McpToolProvider;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.transport.McpTransport;
import dev.langchain4j.mcp.client.transport.http.StreamableHttpMcpTransport;
import dev.langchain4j.mcp.client.transport.stdio.StdioMcpTransport;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.service.AiServices;
import io.agentbus.mock.MockModelOptions;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The peer: the same workload through LangChain4j 1.11 as its documentation shows it, an
 * {@link AiServices} assistant with {@code langchain4j-anthropic} against the same mock and
 * {@code langchain4j-mcp} tools from the same bench MCP server (stdio child or Streamable HTTP),
 * tools executed concurrently. Blocking calls on its own threads: a pool of C platform threads,
 * or one virtual thread per conversation ({@code virtual}, Java 21+). The model's HTTP client is
 * LangChain4j's default, the JDK {@link HttpClient} negotiating its protocol version itself
 * (HTTP/2 preferred: for an http URL it offers an h2c upgrade, which the mock's Vert.x server
 * accepts); the virtual-thread variant only gives that client the virtual-thread executor.
 *
 * <p>Over HTTP/2 the JDK client keeps one connection per server and fails a request with
 * {@code IOException: too many concurrent streams} once the server's
 * {@code SETTINGS_MAX_CONCURRENT_STREAMS} are in use (it opens no second connection; the mock
 * allows {@link #MOCK_H2_STREAMS}, a server with Vert.x' default 100). Past that concurrency a
 * user has to pin HTTP/1.1, so the scenarios do the same ({@code --peer-http auto};
 * {@code default} and {@code 1.1} force either); the row's {@code modelHttp} says which ran.
 */
final class LangChain4jSubject implements Subject {

  /** The AI service interface LangChain4j implements. */
  public interface Assistant {
    String chat(String message);
  }

  private final Workload workload;
  private final int mockPort;
  private final int maxInFlight;
  private final boolean virtual;
  private final boolean concurrentTools;
  private final Integer httpMcpPort;
  private final boolean http11;
  private ExecutorService callers;
  private ExecutorService toolThreads;
  private McpClient mcp;
  private Assistant assistant;

  /** The mock's HTTP/2 {@code SETTINGS_MAX_CONCURRENT_STREAMS} (the workload leaves the default). */
  static final long MOCK_H2_STREAMS = MockModelOptions.DEFAULT_MAX_CONCURRENT_STREAMS;

  /** @param http11 pin the JDK client to HTTP/1.1 instead of its default negotiation */
  LangChain4jSubject(Workload workload, int mockPort, int maxInFlight, boolean virtual, boolean concurrentTools,
      Integer httpMcpPort, boolean http11) {
    this.http11 = http11;
    this.workload = workload;
    this.mockPort = mockPort;
    this.maxInFlight = maxInFlight;
    this.virtual = virtual && VirtualThreads.available();
    this.concurrentTools = concurrentTools;
    this.httpMcpPort = httpMcpPort;
  }

  @Override
  public String name() {
    return "langchain4j" + (virtual ? "-vt" : "") + (concurrentTools ? "" : "-seq");
  }

  /** @return {@code HTTP/1.1} when pinned, else {@code default} (the JDK client's negotiation) */
  String httpVersion() {
    return http11 ? "HTTP/1.1" : "default";
  }

  @Override
  public void start() throws Exception {
    callers = virtual ? VirtualThreads.perTask() : Executors.newFixedThreadPool(maxInFlight);
    toolThreads = virtual ? VirtualThreads.perTask() : Executors.newCachedThreadPool();
    McpTransport transport = "http".equals(workload.mcp())
      ? new StreamableHttpMcpTransport.Builder().url("http://127.0.0.1:" + httpMcpPort + "/mcp")
        .timeout(Duration.ofMinutes(5)).build()
      : new StdioMcpTransport.Builder().command(Child.javaCommand(BenchMcpServer.class, AgentbusSubject.benchServerArgs(workload)))
        .logEvents(false).build();
    mcp = new DefaultMcpClient.Builder().transport(transport).cacheToolList(true)
      .toolExecutionTimeout(Duration.ofMinutes(5)).build();
    String[] offered = new String[workload.offered()];
    for (int i = 0; i < offered.length; i++) {
      offered[i] = "t" + i;
    }
    AnthropicChatModel.AnthropicChatModelBuilder model = AnthropicChatModel.builder()
      .baseUrl("http://127.0.0.1:" + mockPort + "/v1/").apiKey("bench-key").modelName("claude-sonnet-4-5").maxTokens(1024)
      .maxRetries(0).timeout(Duration.ofMinutes(5));
    if (virtual || http11) {
      HttpClient.Builder http = HttpClient.newBuilder();
      if (virtual) {
        http.executor(toolThreads);
      }
      if (http11) {
        http.version(HttpClient.Version.HTTP_1_1);
      }
      model.httpClientBuilder(new JdkHttpClientBuilder().httpClientBuilder(http));
    }
    AiServices<Assistant> builder = AiServices.builder(Assistant.class).chatModel(model.build())
      .toolProvider(McpToolProvider.builder().mcpClients(mcp).filterToolNames(offered).build());
    if (concurrentTools) {
      builder.executeToolsConcurrently(toolThreads);
    }
    assistant = builder.build();
  }

  @Override
  public CompletionStage<?> conversation(int i) {
    return CompletableFuture.runAsync(() -> {
      String answer = assistant.chat("Conversation " + i + ": call the tools, then answer.");
      if (!answer.startsWith("Received " + workload.k() + " tool result(s)")) {
        throw new IllegalStateException("unexpected answer: " + answer);
      }
    }, callers);
  }

  @Override
  public void close() throws Exception {
    if (mcp != null) {
      mcp.close();
    }
    for (ExecutorService e : new ExecutorService[] {callers, toolThreads}) {
      if (e != null) {
        e.shutdownNow();
        e.awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }
}
