package io.agentbus.bench;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's MCP server, run as a child process over stdio:
 * {@code BenchMcpServer [--tools N] [--latency-ms L] [--probe-port P]}.
 * <ul>
 *   <li>{@code sleep {ms}} answers after {@code ms} milliseconds, {@code noop} at once (fanout,
 *   stdio-pipeline);</li>
 *   <li>{@code t0} .. {@code t<N-1>} (N = 8 by default) take no arguments and answer after L ms
 *   (0 by default): the tools the mock model calls in the conversation scenarios.</li>
 * </ul>
 * Delays are scheduled tasks on one timer thread, so any number of calls wait at once without
 * holding a thread. With {@code --probe-port}, that timer thread also runs a {@link FloorProbe}
 * timer, and the worst lateness of the probe and of the tools' own timers goes to the harness
 * as {@code tool}.
 */
public final class BenchMcpServer {

  private BenchMcpServer() {
  }

  public static void main(String[] args) throws Exception {
    int tools = 8;
    int plainTools = Integer.MAX_VALUE;
    long latencyMs = 0;
    int probePort = 0;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--tools" -> tools = Integer.parseInt(args[i + 1]);
        case "--plain-tools" -> plainTools = Integer.parseInt(args[i + 1]);
        case "--latency-ms" -> latencyMs = Long.parseLong(args[i + 1]);
        case "--probe-port" -> probePort = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    FloorProbe.Reporter floor = FloorProbe.Reporter.of(FloorProbe.TOOL, probePort);
    floor.probe(timer);
    JsonObject msSchema = new JsonObject().put("type", "object").put("properties",
      new JsonObject().put("ms", new JsonObject().put("type", "integer").put("minimum", 0))).put("required", new JsonArray().add("ms"));
    StdioMcpServer server = new StdioMcpServer("agentbus-bench", "1.0")
      .tool(new ServerTool(new JsonObject().put("name", "sleep").put("description", "Answers after ms milliseconds")
        .put("inputSchema", msSchema), (a, call) -> later(timer, floor, a.getLong("ms", 0L), "slept " + a.getLong("ms"))))
      .tool(new ServerTool(new JsonObject().put("name", "noop").put("description", "Answers at once")
        .put("inputSchema", new JsonObject().put("type", "object")),
        (a, call) -> CompletableFuture.completedFuture(ServerTool.text("ok"))));
    for (int i = 0; i < tools; i++) {
      String name = "t" + i;
      long ms = latencyMs;
      JsonObject definition = i < plainTools
        ? new JsonObject().put("name", name).put("description", "Bench tool " + i + ": answers after " + ms + " ms")
          .put("inputSchema", new JsonObject().put("type", "object").put("properties", new JsonObject()))
        : realisticTool(name);
      server.tool(new ServerTool(definition, (a, call) -> later(timer, floor, ms, name + " done")));
    }
    server.run();
    timer.shutdownNow();
  }

  /**
   * A tool definition of the size real MCP servers' tools have (about 900 bytes: a paragraph of
   * description, five described properties with types, formats, enums and bounds): what a host
   * offering several servers' tools sends on every model call.
   */
  static JsonObject realisticTool(String name) {
    JsonObject properties = new JsonObject()
      .put("query", new JsonObject().put("type", "string").put("description", "What to look for, in the user's words; "
        + "quote exact phrases").put("minLength", 1).put("maxLength", 2000))
      .put("scope", new JsonObject().put("type", "string").put("enum", new JsonArray().add("all").add("recent").add("archived"))
        .put("description", "Which records to search").put("default", "all"))
      .put("limit", new JsonObject().put("type", "integer").put("minimum", 1).put("maximum", 100).put("default", 20)
        .put("description", "The most results to return"))
      .put("since", new JsonObject().put("type", "string").put("format", "date-time")
        .put("description", "Only records changed after this instant (RFC 3339)"))
      .put("fields", new JsonObject().put("type", "array").put("items", new JsonObject().put("type", "string"))
        .put("uniqueItems", true).put("description", "Fields to include in each result; all when absent"));
    return new JsonObject().put("name", name)
      .put("description", "Searches the records of this bench service (" + name + ") and returns the matching ones, newest "
        + "first. Use it when the user asks about past records; narrow the scope and the time range when you can, since "
        + "broad searches are slow.")
      .put("inputSchema", new JsonObject().put("type", "object").put("properties", properties)
        .put("required", new JsonArray().add("query")).put("additionalProperties", false));
  }

  private static CompletableFuture<JsonObject> later(ScheduledExecutorService timer, FloorProbe.Reporter floor, long ms,
      String text) {
    if (ms <= 0) {
      return CompletableFuture.completedFuture(ServerTool.text(text));
    }
    CompletableFuture<JsonObject> f = new CompletableFuture<>();
    long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    timer.schedule(() -> {
      floor.fired(due);
      f.complete(ServerTool.text(text));
    }, ms, TimeUnit.MILLISECONDS);
    return f;
  }
}
