package io.agentbus.mcp.transport.stdio;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;

/**
 * Child processes for {@link StdioTransportTest}, run as a child JVM. The first argument
 * picks the behaviour:
 * <ul>
 *   <li>{@code record FILE}: copies every stdin line to FILE until stdin ends, then exits 0;</li>
 *   <li>{@code deaf}: never reads stdin and waits to be killed;</li>
 *   <li>{@code mcp FILE}: an MCP server with a {@code hang} tool (never answers) that appends
 *   every message it receives to FILE, one line each, as it receives it;</li>
 *   <li>{@code flood N}: prints N lines of garbage to stdout and N to stderr, then one
 *   JSON-RPC notification ({@code notifications/flooded}) to stdout, then exits 0 when stdin
 *   ends.</li>
 * </ul>
 */
public final class StdioChild {

  private StdioChild() {
  }

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "record" -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
             Writer out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
          String line;
          while ((line = in.readLine()) != null) {
            out.write(line);
            out.write('\n');
          }
        }
      }
      case "deaf" -> Thread.sleep(Long.MAX_VALUE);
      case "flood" -> {
        int n = Integer.parseInt(args[1]);
        try (java.io.PrintStream out = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
               StandardCharsets.UTF_8);
             java.io.PrintStream err = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), false,
               StandardCharsets.UTF_8)) {
          for (int i = 0; i < n; i++) {
            out.print("this is not json " + i + "\n");
            err.print("noise on stderr " + i + "\n");
          }
          out.print("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/flooded\"}\n");
          out.flush();
          err.flush();
          System.in.transferTo(java.io.OutputStream.nullOutputStream());
        }
      }
      case "mcp" -> {
        Path file = Path.of(args[1]);
        StdioMcpServer server = new StdioMcpServer("recorder", "1.0") {
          @Override
          protected void onMessage(JsonObject msg) {
            try {
              Files.writeString(file, msg.encode() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
            super.onMessage(msg);
          }
        };
        server.tool(new ServerTool(new JsonObject().put("name", "hang").put("inputSchema", new JsonObject().put("type", "object")),
          (a, c) -> new CompletableFuture<>()));
        server.run();
      }
      default -> throw new IllegalArgumentException(args[0]);
    }
  }
}
