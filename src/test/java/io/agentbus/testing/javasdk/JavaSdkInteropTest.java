package io.agentbus.testing.javasdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.server.McpServerVerticle;
import io.agentbus.testing.Integration;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Agentbus's client against a real MCP server built on the official Java SDK 2.1.0
 * ({@link JavaSdkServer}), over stdio and over Streamable HTTP on embedded Tomcat.
 */
@Integration
@ExtendWith(VertxExtension.class)
class JavaSdkInteropTest {

  /** How the server is reached. */
  enum Mode { STDIO, HTTP }

  /** Starts a server for {@code mode}, runs {@code body} with its options, then stops it. */
  private static <T> Future<T> withServer(Vertx vertx, Mode mode, String name, Function<McpServerOptions, Future<T>> body) {
    if (mode == Mode.STDIO) {
      return body.apply(tune(JavaSdkHttpServer.stdioOptions(name)));
    }
    return JavaSdkHttpServer.start(vertx.getOrCreateContext()).compose(server ->
      body.apply(tune(server.options(name))).eventually(() -> vertx.executeBlocking(() -> {
        server.close();
        return null;
      })));
  }

  private static McpServerOptions tune(McpServerOptions o) {
    // far below the 30 s default: the handshake must not wait for the GET stream
    return o.setConnectTimeoutMs(15_000).setTimeoutMs(20_000);
  }

  private static Future<McpClient> connect(Vertx vertx, McpServerOptions options) {
    McpClient client = McpClient.create(vertx, options);
    return client.connect().map(client);
  }

  private static <T> Future<T> using(Vertx vertx, McpServerOptions options, Function<McpClient, Future<T>> body) {
    return connect(vertx, options).compose(c -> body.apply(c).eventually(c::close));
  }

  private static Future<JsonObject> call(McpClient c, String tool, JsonObject args) {
    return c.callTool(tool, args, null);
  }

  private static String text(JsonObject result, int index) {
    return result.getJsonArray("content").getJsonObject(index).getString("text");
  }

  private static Set<String> names(List<JsonObject> tools) {
    return tools.stream().map(t -> t.getString("name")).collect(Collectors.toSet());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void textImageStructuredAndErrorResults(Mode mode, Vertx vertx, VertxTestContext ctx) {
    withServer(vertx, mode, "javasdk", o -> using(vertx, o, c -> {
      ctx.verify(() -> {
        assertEquals("javasdk-test", c.initializeResult().getJsonObject("serverInfo").getString("name"));
        assertTrue(names(c.tools()).containsAll(Set.of("echo", "picture", "add", "refuse", "crash", "explode", "nothing", "grow")),
          names(c.tools())::toString);
        JsonObject add = c.tools().stream().filter(t -> "add".equals(t.getString("name"))).findFirst().orElseThrow();
        assertEquals("integer", add.getJsonObject("outputSchema").getJsonObject("properties").getJsonObject("sum")
          .getString("type"));
      });
      return Future.all(
        call(c, "echo", new JsonObject().put("message", "hello sdk")),
        call(c, "picture", new JsonObject()),
        call(c, "add", new JsonObject().put("a", 2).put("b", 3)),
        call(c, "refuse", new JsonObject()));
    })).onComplete(ctx.succeeding(all -> ctx.verify(() -> {
      JsonObject echo = all.resultAt(0);
      assertEquals("Echo: hello sdk", text(echo, 0));
      JsonObject picture = all.resultAt(1);
      assertEquals("a pixel", text(picture, 0));
      JsonObject image = picture.getJsonArray("content").getJsonObject(1);
      assertEquals("image", image.getString("type"));
      assertEquals("image/png", image.getString("mimeType"));
      assertEquals(JavaSdkServer.PNG, image.getString("data"));
      JsonObject add = all.resultAt(2);
      assertEquals(5, add.getJsonObject("structuredContent").getInteger("sum"));
      assertNotEquals(Boolean.TRUE, add.getValue("isError"));
      JsonObject refuse = all.resultAt(3);
      assertEquals(Boolean.TRUE, refuse.getValue("isError"));
      assertEquals("refused on purpose", text(refuse, 0));
      ctx.completeNow();
    })));
  }

  /** Calls {@code tool}; describes the outcome and how long it took, then checks the connection still works. */
  private static Future<List<String>> outcomeThenEcho(McpClient c, String tool) {
    long start = System.nanoTime();
    return call(c, tool, new JsonObject())
      .map(r -> "isError=" + r.getValue("isError") + " " + r.encode())
      .recover(err -> Future.succeededFuture(describe(err)))
      .map(outcome -> outcome + " after " + (System.nanoTime() - start) / 1_000_000 + " ms")
      .compose(outcome -> call(c, "echo", new JsonObject().put("message", "still alive"))
        .map(after -> List.of(outcome, text(after, 0))));
  }

  private static Future<List<List<String>>> outcomesThenEcho(McpClient c, List<String> tools, List<List<String>> acc) {
    if (acc.size() == tools.size()) {
      return Future.succeededFuture(acc);
    }
    return outcomeThenEcho(c, tools.get(acc.size())).compose(o -> {
      acc.add(o);
      return outcomesThenEcho(c, tools, acc);
    });
  }

  private static String describe(Throwable err) {
    McpException e = assertInstanceOf(McpException.class, err);
    return "failed " + e.kind() + ": " + e.getMessage();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void toolsThatThrowOrReturnNothingFailThoseCallsClearly(Mode mode, Vertx vertx, VertxTestContext ctx) {
    // over stdio the SDK never answers "nothing": only a timeout could end that call
    List<String> tools = mode == Mode.HTTP ? List.of("crash", "explode", "nothing") : List.of("crash", "explode");
    withServer(vertx, mode, "javasdk", o -> using(vertx, o, c -> outcomesThenEcho(c, tools, new ArrayList<>())))
      .onComplete(ctx.succeeding(outcomes -> ctx.verify(() -> {
        for (List<String> o : outcomes) {
          // a failed call, never a hang until the 20 s timeout, and the connection stays usable
          assertTrue(o.get(0).startsWith("failed ") && !o.get(0).startsWith("failed TIMEOUT"), o.get(0));
          assertEquals("Echo: still alive", o.get(1), o.get(0));
        }
        String crash = outcomes.get(0).get(0);
        // over HTTP, now and then (1 run in 10 here) Tomcat closes the keep-alive connection the
        // call was sent on: a transport failure, never a hang or a wrong answer
        assertTrue(crash.startsWith("failed RPC_ERROR") && crash.contains("crash from the Java SDK tool")
          || mode == Mode.HTTP && crash.startsWith("failed TRANSPORT") && crash.contains("Connection was closed"), crash);
        String explode = outcomes.get(1).get(0);
        if (mode == Mode.HTTP) {
          // Tomcat's HTTP 500 with a serialized exception as the body, or (racing it) the
          // connection closed by Tomcat: either way a transport failure, not a hang
          assertTrue(explode.startsWith("failed TRANSPORT")
            && (explode.contains("HTTP 500") || explode.contains("Connection was closed")), explode);
          // the same race: the connection "explode" left may be the one Tomcat is closing
          String nothing = outcomes.get(2).get(0);
          assertTrue(nothing.startsWith("failed TRANSPORT")
            && (nothing.contains("without an answer") || nothing.contains("Connection was closed")), nothing);
        } else {
          assertTrue(explode.startsWith("failed RPC_ERROR") && explode.contains("kaboom"), explode);
        }
        ctx.completeNow();
      })));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aToolAddedAfterStartIsListedAndCallable(Mode mode, Vertx vertx, VertxTestContext ctx) {
    withServer(vertx, mode, "javasdk", o -> {
      McpClient c = McpClient.create(vertx, o);
      Promise<List<JsonObject>> changed = Promise.promise();
      c.toolsChangedHandler(tools -> {
        if (names(tools).contains("late")) {
          changed.tryComplete(tools);
        }
      });
      return c.connect()
        .compose(init -> {
          ctx.verify(() -> assertTrue(!names(c.tools()).contains("late")));
          return call(c, "grow", new JsonObject());
        })
        .compose(grown -> {
          ctx.verify(() -> assertEquals("grown", text(grown, 0), grown.encode()));
          return changed.future();
        })
        .compose(tools -> call(c, "late", new JsonObject()))
        .eventually(c::close);
    }).onComplete(ctx.succeeding(late -> ctx.verify(() -> {
      assertEquals("late bloomer", text(late, 0));
      ctx.completeNow();
    })));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theServerVerticleReachesReadyAndServesCalls(Mode mode, Vertx vertx, VertxTestContext ctx) {
    withServer(vertx, mode, "javasdk-serve", o -> {
      long start = System.nanoTime();
      DeliveryOptions status = new DeliveryOptions().addHeader(Actions.HEADER, Actions.STATUS);
      DeliveryOptions callOpts = new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_CALL).setSendTimeout(30_000);
      return vertx.deployVerticle(new McpServerVerticle(), new DeploymentOptions().setConfig(o.toJson()))
        .compose(id -> vertx.eventBus().<JsonObject>request(Addresses.mcp("javasdk-serve"), new JsonObject(), status)
          .map(m -> m.body().put("elapsedMs", (System.nanoTime() - start) / 1_000_000))
          .compose(st -> vertx.eventBus().<JsonObject>request(Addresses.mcp("javasdk-serve"), new JsonObject()
              .put("name", "echo").put("arguments", new JsonObject().put("message", "served")), callOpts)
            .map(m -> new JsonArray().add(st).add(m.body())))
          .eventually(() -> vertx.undeploy(id)));
    }).onComplete(ctx.succeeding(both -> ctx.verify(() -> {
      JsonObject st = both.getJsonObject(0);
      assertEquals("READY", st.getString("status"), st.encode());
      assertNotNull(st.getLong("elapsedMs"));
      assertEquals("Echo: served", text(both.getJsonObject(1), 0));
      ctx.completeNow();
    })));
  }
}
