package io.agentbus.mcp.transport.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;

/**
 * A scripted Streamable HTTP MCP server on a Vert.x HttpServer (port 0): a tiny MCP with one
 * {@code echo} tool, whose behaviour tests change through the public fields.
 */
final class FakeMcpServer {

  /** One request as the server saw it. */
  record Seen(HttpMethod method, String path, MultiMap headers, JsonObject body) {
    String header(String name) {
      return headers.get(name);
    }
  }

  final List<Seen> seen = new CopyOnWriteArrayList<>();
  /** Answer requests as SSE (true) or plain JSON. */
  volatile boolean sseReplies = true;
  /** Status and body for a request with an unknown session. */
  volatile int sessionGoneStatus = 404;
  volatile String sessionGoneBody = "";
  /** The body sent with the 202 for notifications and responses. */
  volatile String acceptedBody = "";
  /** Handles tools/call; the default echoes. */
  volatile BiConsumer<HttpServerRequest, JsonObject> onCall = this::echo;
  /** Sees every initialize first; returns true when it answered it itself. */
  volatile BiPredicate<HttpServerRequest, JsonObject> interceptInitialize = (req, msg) -> false;
  /** Handles GET; the default is 405 (no standalone stream). */
  volatile Handler<HttpServerRequest> onGet = req -> req.response().setStatusCode(405).end();
  volatile int initializeCount;
  volatile String session;
  private HttpServer server;
  private int events;

  static Future<FakeMcpServer> start(Vertx vertx) {
    FakeMcpServer fake = new FakeMcpServer();
    fake.server = vertx.createHttpServer().requestHandler(fake::handle);
    return fake.server.listen(0, "127.0.0.1").map(s -> fake);
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort() + "/mcp";
  }

  Future<Void> close() {
    return server.close();
  }

  /** Forgets the session: every later request with it gets {@link #sessionGoneStatus}. */
  void expireSession() {
    session = "expired-" + session;
  }

  List<Seen> posts(String method) {
    return seen.stream().filter(s -> s.body != null && method.equals(s.body.getString("method"))).toList();
  }

  private void handle(HttpServerRequest req) {
    if (req.method() == HttpMethod.GET) {
      seen.add(new Seen(req.method(), req.path(), MultiMap.caseInsensitiveMultiMap().addAll(req.headers()), null));
      onGet.handle(req);
      return;
    }
    if (req.method() == HttpMethod.DELETE) {
      seen.add(new Seen(req.method(), req.path(), MultiMap.caseInsensitiveMultiMap().addAll(req.headers()), null));
      req.response().end();
      return;
    }
    req.body().onSuccess(buf -> {
      JsonObject msg = buf.toJsonObject();
      seen.add(new Seen(req.method(), req.path(), MultiMap.caseInsensitiveMultiMap().addAll(req.headers()), msg));
      String method = msg.getString("method");
      if ("initialize".equals(method)) {
        if (interceptInitialize.test(req, msg)) {
          return;
        }
        initializeCount++;
        session = "session-" + initializeCount;
        req.response().putHeader("Mcp-Session-Id", session);
        reply(req, result(msg, new JsonObject().put("protocolVersion", "2025-11-25")
          .put("capabilities", new JsonObject().put("tools", new JsonObject()))
          .put("serverInfo", new JsonObject().put("name", "fake").put("version", "1"))));
        return;
      }
      if (!java.util.Objects.equals(session, req.getHeader("Mcp-Session-Id"))) {
        req.response().setStatusCode(sessionGoneStatus).end(sessionGoneBody);
        return;
      }
      if (method == null || msg.getValue("id") == null) {
        req.response().setStatusCode(202).end(acceptedBody);
        return;
      }
      switch (method) {
        case "tools/list" -> reply(req, result(msg, new JsonObject().put("tools", new JsonArray()
          .add(new JsonObject().put("name", "echo").put("inputSchema", new JsonObject().put("type", "object"))))));
        case "tools/call" -> onCall.accept(req, msg);
        case "ping" -> reply(req, result(msg, new JsonObject()));
        default -> reply(req, new JsonObject().put("jsonrpc", "2.0").put("id", msg.getValue("id"))
          .put("error", new JsonObject().put("code", -32601).put("message", "no such method")));
      }
    });
  }

  void echo(HttpServerRequest req, JsonObject msg) {
    String text = msg.getJsonObject("params").getJsonObject("arguments").getString("message");
    reply(req, toolResult(msg, "Echo: " + text));
  }

  static JsonObject result(JsonObject request, JsonObject result) {
    return new JsonObject().put("jsonrpc", "2.0").put("id", request.getValue("id")).put("result", result);
  }

  static JsonObject toolResult(JsonObject request, String text) {
    return result(request, new JsonObject().put("content", new JsonArray()
      .add(new JsonObject().put("type", "text").put("text", text))));
  }

  void reply(HttpServerRequest req, JsonObject msg) {
    HttpServerResponse resp = req.response();
    if (sseReplies) {
      startSse(resp).end("event: message\nid: " + (++events) + "\ndata: " + msg.encode() + "\n\n");
    } else {
      resp.putHeader("Content-Type", "application/json").end(msg.encode());
    }
  }

  static HttpServerResponse startSse(HttpServerResponse resp) {
    return resp.setChunked(true).putHeader("Content-Type", "text/event-stream").putHeader("Cache-Control", "no-cache");
  }
}
