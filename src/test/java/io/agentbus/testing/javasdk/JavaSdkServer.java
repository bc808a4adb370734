package io.agentbus.testing.javasdk;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ImageContent;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A small MCP server on the official Java SDK ({@code io.modelcontextprotocol.sdk:mcp}), run
 * as a child JVM by the interop tests. {@code stdio} serves over stdin/stdout
 * ({@code StdioServerTransportProvider}); {@code http} serves Streamable HTTP at {@code /mcp}
 * ({@code HttpServletStreamableServerTransportProvider}) on embedded Tomcat on a free port,
 * printing {@code PORT <n>} on stdout once it listens (the stack under Spring AI's MCP
 * servers). Tools:
 * <ul>
 *   <li>{@code echo {message}}: text "Echo: &lt;message&gt;";</li>
 *   <li>{@code picture}: a caption and a 1x1 PNG image;</li>
 *   <li>{@code add {a, b}}: {@code structuredContent {sum}} matching its outputSchema;</li>
 *   <li>{@code refuse}: an {@code isError} result;</li>
 *   <li>{@code crash}: fails its {@code Mono}: the SDK answers a JSON-RPC error -32603;</li>
 *   <li>{@code explode}: its handler throws instead of returning a failed {@code Mono}: a
 *   JSON-RPC error over stdio, but over HTTP the SDK's servlet fails and Tomcat answers
 *   HTTP 500 with a body that is not JSON-RPC (a serialized exception);</li>
 *   <li>{@code nothing}: an empty {@code Mono}: over HTTP an empty event stream, over stdio
 *   no answer at all (the tests do not call it there);</li>
 *   <li>{@code grow}: adds the tool {@code late} (which answers "late bloomer") and so sends
 *   {@code notifications/tools/list_changed}; over HTTP it first waits until a client has
 *   its GET stream open, as the SDK sends that notification only there.</li>
 * </ul>
 */
public final class JavaSdkServer {

  /** A 1x1 transparent PNG. */
  public static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

  private static final CountDownLatch GET_STREAM = new CountDownLatch(1);
  private static final String OBJECT = "{\"type\":\"object\"}";
  private static volatile McpAsyncServer server;
  private static volatile boolean http;

  private JavaSdkServer() {
  }

  public static void main(String[] args) throws Exception {
    McpJsonMapper json = McpJsonDefaults.getMapper();
    http = args.length > 0 && args[0].equals("http");
    if (!http) {
      server = build(McpServer.async(new StdioServerTransportProvider(json)), json);
      return;
    }
    HttpServletStreamableServerTransportProvider provider = HttpServletStreamableServerTransportProvider.builder()
      .jsonMapper(json).mcpEndpoint("/mcp").build();
    server = build(McpServer.async(provider), json);
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(Files.createTempDirectory("javasdk-tomcat").toString());
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.getService().addConnector(connector);
    tomcat.setConnector(connector);
    Context ctx = tomcat.addContext("", null);
    Wrapper wrapper = Tomcat.addServlet(ctx, "mcp", provider);
    wrapper.setAsyncSupported(true);
    ctx.addServletMappingDecoded("/*", "mcp");
    addGetStreamWatch(ctx);
    tomcat.start();
    System.out.println("PORT " + connector.getLocalPort());
    System.out.flush();
    tomcat.getServer().await();
  }

  /** Notes when the SDK has registered a GET (listening) stream: after its doGet returned. */
  private static void addGetStreamWatch(Context ctx) {
    Filter watch = (req, resp, chain) -> {
      chain.doFilter(req, resp);
      if (req instanceof HttpServletRequest h && "GET".equals(h.getMethod())) {
        GET_STREAM.countDown();
      }
    };
    FilterDef def = new FilterDef();
    def.setFilterName("get-stream-watch");
    def.setFilter(watch);
    def.setAsyncSupported("true");
    ctx.addFilterDef(def);
    FilterMap map = new FilterMap();
    map.setFilterName("get-stream-watch");
    map.addURLPatternDecoded("/*");
    ctx.addFilterMap(map);
  }

  private static McpAsyncServer build(McpServer.AsyncSpecification<?> spec, McpJsonMapper json) {
    return spec.serverInfo("javasdk-test", "2.1.0")
      .capabilities(ServerCapabilities.builder().tools(true).build())
      .tools(
        tool(Tool.builder().name("echo").description("Echoes the message")
          .inputSchema(json, "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}")
          .build(), args -> CallToolResult.builder().addTextContent("Echo: " + args.get("message")).build()),
        tool(Tool.builder().name("picture").description("A tiny image").inputSchema(json, OBJECT).build(),
          args -> CallToolResult.builder().addTextContent("a pixel")
            .addContent(new ImageContent(null, PNG, "image/png")).build()),
        tool(Tool.builder().name("add").description("Adds two integers")
          .inputSchema(json, "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
            + "\"required\":[\"a\",\"b\"]}")
          .outputSchema(json, "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"integer\"}},\"required\":[\"sum\"]}")
          .build(), args -> {
            long sum = ((Number) args.get("a")).longValue() + ((Number) args.get("b")).longValue();
            return CallToolResult.builder().structuredContent(Map.of("sum", sum))
              .content(List.of(new TextContent("{\"sum\":" + sum + "}"))).build();
          }),
        tool(Tool.builder().name("refuse").description("Always an error result").inputSchema(json, OBJECT).build(),
          args -> CallToolResult.builder().addTextContent("refused on purpose").isError(true).build()),
        tool(Tool.builder().name("crash").description("Throws").inputSchema(json, OBJECT).build(), args -> {
          throw new IllegalStateException("crash from the Java SDK tool");
        }),
        AsyncToolSpecification.builder()
          .tool(Tool.builder().name("explode").description("Throws from the handler itself").inputSchema(json, OBJECT).build())
          .callHandler((exchange, request) -> {
            throw new IllegalStateException("kaboom from the Java SDK tool");
          })
          .build(),
        tool(Tool.builder().name("nothing").description("Returns null").inputSchema(json, OBJECT).build(), args -> null),
        AsyncToolSpecification.builder()
          .tool(Tool.builder().name("grow").description("Adds the tool 'late'").inputSchema(json, OBJECT).build())
          .callHandler((exchange, request) -> Mono.fromCallable(JavaSdkServer::awaitGetStream)
            .subscribeOn(Schedulers.boundedElastic())
            .flatMap(ok -> !ok ? Mono.just(CallToolResult.builder().addTextContent("no GET stream was opened").isError(true).build())
              // addTool sends notifications/tools/list_changed (tools.listChanged is declared)
              : server.addTool(tool(Tool.builder().name("late").description("Added after start").inputSchema(json, OBJECT).build(),
                  args -> CallToolResult.builder().addTextContent("late bloomer").build()))
                .thenReturn(CallToolResult.builder().addTextContent("grown").build())))
          .build())
      .build();
  }

  /** Over HTTP, waits until a client has its GET stream open; {@code false} when none came. */
  private static boolean awaitGetStream() throws InterruptedException {
    return !http || GET_STREAM.await(20, TimeUnit.SECONDS);
  }

  /** A tool whose (blocking) body runs on Reactor's bounded elastic scheduler. */
  private static AsyncToolSpecification tool(Tool tool, Function<Map<String, Object>, CallToolResult> body) {
    return AsyncToolSpecification.builder().tool(tool)
      .callHandler((exchange, request) -> Mono.fromCallable(() -> body.apply(request.arguments() == null ? Map.of()
        : request.arguments())).subscribeOn(Schedulers.boundedElastic()))
      .build();
  }
}
