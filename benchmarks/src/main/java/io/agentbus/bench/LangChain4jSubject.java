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
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The peer: the same workload through LangChain4j 1.11 as its documentation shows it, an
 * {@link AiServices} assistant with {@code langchain4j-anthropic} against the same mock (HTTP/1.1
 * JDK client) and {@code langchain4j-mcp} tools from the same bench MCP server (stdio child or
 * Streamable HTTP), tools executed concurrently. Blocking calls on its own threads: a pool of C
 * platform threads, or one virtual thread per conversation ({@code virtual}, Java 21+).
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
  private ExecutorService callers;
  private ExecutorService toolThreads;
  private McpClient mcp;
  private Assistant assistant;

  LangChain4jSubject(Workload workload, int mockPort, int maxInFlight, boolean virtual, boolean concurrentTools,
      Integer httpMcpPort) {
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
    String[] offered = new String[workload.k()];
    for (int i = 0; i < offered.length; i++) {
      offered[i] = "t" + i;
    }
    HttpClient.Builder http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
    if (virtual) {
      http.executor(toolThreads);
    }
    AnthropicChatModel model = AnthropicChatModel.builder().baseUrl("http://127.0.0.1:" + mockPort + "/v1/")
      .apiKey("bench-key").modelName("claude-sonnet-4-5").maxTokens(1024).maxRetries(0).timeout(Duration.ofMinutes(5))
      .httpClientBuilder(new JdkHttpClientBuilder().httpClientBuilder(http)).build();
    AiServices<Assistant> builder = AiServices.builder(Assistant.class).chatModel(model)
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
