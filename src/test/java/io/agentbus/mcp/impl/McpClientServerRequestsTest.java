package io.agentbus.mcp.impl;

import static io.agentbus.mcp.impl.ClientHarness.await;
import static io.agentbus.mcp.impl.ClientHarness.get;
import static io.agentbus.mcp.impl.ClientHarness.initializeResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.ServerRequest;
import io.agentbus.mcp.ServerRequestHandler;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The client's side of server requests: capabilities from the handler, the call a request's
 * {@code _meta} names, answers and errors as JSON-RPC, and {@code -32601} without a handler.
 */
@ExtendWith(VertxExtension.class)
class McpClientServerRequestsTest {

  private static final JsonObject CAPS = new JsonObject().put("roots", new JsonObject().put("listChanged", true));
  private ClientHarness h;
  private final List<ServerRequest> seen = new CopyOnWriteArrayList<>();

  @AfterEach
  void noMisuse() {
    assertEquals(List.of(), h.transport.violations());
  }

  private final ServerRequestHandler handler = new ServerRequestHandler() {
    @Override
    public JsonObject capabilities() {
      return CAPS;
    }

    @Override
    public Future<JsonObject> handle(ServerRequest request) {
      seen.add(request);
      return switch (request.method()) {
        case "roots/list" -> Future.succeededFuture(new JsonObject().put("roots", new io.vertx.core.json.JsonArray()));
        case "sampling/createMessage" -> Future.failedFuture(new McpException(McpException.Kind.RPC_ERROR, "refused", -1, null, null));
        default -> Future.failedFuture(new IllegalStateException("boom"));
      };
    }
  };

  private static JsonObject request(Object id, String method, JsonObject params) {
    JsonObject msg = new JsonObject().put("jsonrpc", "2.0").put("id", id).put("method", method);
    return params == null ? msg : msg.put("params", params);
  }

  private JsonObject responseTo(Object id) {
    return h.transport.sentResponses().stream().filter(r -> id.equals(r.getValue("id"))).findFirst().orElseThrow();
  }

  private void connect(boolean withHandler) {
    h.transport.respondTo("initialize", req -> initializeResult(false));
    if (withHandler) {
      h.onContext(() -> h.client.serverRequestHandler(handler));
    }
    await(h.client.connect());
  }

  @Test
  void aRequestWhoseMetaNamesAPendingCallCarriesItsCaller(Vertx vertx) {
    h = new ClientHarness(vertx);
    connect(true);
    assertEquals(CAPS, h.transport.sent("initialize").get(0).getJsonObject("params").getJsonObject("capabilities"));
    Object caller = new Object();
    Future<JsonObject> call = h.onContext(() -> h.client.callTool("t", new JsonObject(), new CallOptions().setCaller(caller)));
    Object callId = get(h.transport.sentMessage("tools/call", 1)).getValue("id");
    await(h.transport.deliver(request("r1", "roots/list", new JsonObject().put("_meta", new JsonObject()
      .put("io.modelcontextprotocol/related-request-id", callId)))));
    await(h.transport.deliver(request("r2", "roots/list", new JsonObject().put("_meta", new JsonObject().put("progressToken", callId)))));
    await(h.transport.deliver(request("r3", "roots/list", null)));
    assertSame(caller, seen.get(0).caller());
    assertSame(caller, seen.get(1).caller());
    assertNull(seen.get(2).caller());
    assertEquals(new JsonObject().put("roots", new io.vertx.core.json.JsonArray()), responseTo("r1").getJsonObject("result"));
    await(h.transport.respond(callId, ClientHarness.text("ok")));
    await(call);
  }

  @Test
  void handlerFailuresBecomeJsonRpcErrors(Vertx vertx) {
    h = new ClientHarness(vertx);
    connect(true);
    await(h.transport.deliver(request(7, "sampling/createMessage", new JsonObject())));
    await(h.transport.deliver(request(8, "elicitation/create", new JsonObject())));
    await(h.transport.deliver(request(9, "elicitation/create", null).put("params", "not an object")));
    assertEquals(-1, responseTo(7).getJsonObject("error").getInteger("code"));
    assertEquals("refused", responseTo(7).getJsonObject("error").getString("message"));
    assertEquals(-32603, responseTo(8).getJsonObject("error").getInteger("code"));
    assertEquals(-32602, responseTo(9).getJsonObject("error").getInteger("code"));
  }

  @Test
  void withoutAHandlerNothingIsDeclaredAndServerRequestsAreMethodNotFound(Vertx vertx) {
    h = new ClientHarness(vertx);
    connect(false);
    assertEquals(new JsonObject(), h.transport.sent("initialize").get(0).getJsonObject("params").getJsonObject("capabilities"));
    await(h.transport.deliver(request(0, "elicitation/create", new JsonObject())));
    assertEquals(-32601, responseTo(0).getJsonObject("error").getInteger("code"));
  }
}
