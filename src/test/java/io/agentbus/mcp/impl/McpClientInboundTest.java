package io.agentbus.mcp.impl;

import static io.agentbus.mcp.impl.ClientHarness.await;
import static io.agentbus.mcp.impl.ClientHarness.awaitFailure;
import static io.agentbus.mcp.impl.ClientHarness.get;
import static io.agentbus.mcp.impl.ClientHarness.initializeResult;
import static io.agentbus.mcp.impl.ClientHarness.names;
import static io.agentbus.mcp.impl.ClientHarness.page;
import static io.agentbus.mcp.impl.ClientHarness.pending;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient.Status;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.ProgressUpdate;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the server sends on its own, at awkward moments: {@code tools/list_changed} between
 * pages, responses with ids the client never used, requests and progress notifications.
 */
@ExtendWith(VertxExtension.class)
class McpClientInboundTest {

  private static final String LIST_CHANGED = "notifications/tools/list_changed";

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private ClientHarness h;

  @AfterEach
  void noMisuse() {
    if (h != null) {
      assertEquals(List.of(), h.transport.violations());
    }
  }

  private static String cursorOf(JsonObject request) {
    JsonObject params = request.getJsonObject("params");
    return params == null ? null : params.getString("cursor");
  }

  // ---- tools/list_changed while paging ---------------------------------------------------

  @Test
  void listChangedBetweenPagesDuringConnectRestartsTheListing(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.transport.respondTo("initialize", req -> initializeResult(true));
    Future<List<String>> toolsAtReady = h.onContext(() -> h.client.connect().map(init -> names(h.client.tools())));
    JsonObject p1 = get(h.transport.sentMessage("tools/list", 1));
    await(h.transport.respond(p1.getValue("id"), page("c2", "old-a", "old-b")));
    JsonObject p2 = get(h.transport.sentMessage("tools/list", 2));
    assertEquals("c2", cursorOf(p2));

    await(h.transport.notify(LIST_CHANGED, null));
    await(h.transport.respond(p2.getValue("id"), page(null, "new-c")));
    JsonObject p3 = get(h.transport.sentMessage("tools/list", 3));
    assertNull(cursorOf(p3), "the listing starts over from the first page");
    assertFalse(toolsAtReady.isComplete(), "connect waits for the fresh listing");
    await(h.transport.respond(p3.getValue("id"), page("n2", "new-a")));
    JsonObject p4 = get(h.transport.sentMessage("tools/list", 4));
    assertEquals("n2", cursorOf(p4));
    await(h.transport.respond(p4.getValue("id"), page(null, "new-c")));

    assertEquals(List.of("new-a", "new-c"), await(toolsAtReady));
    h.onContext(() -> null);
    assertEquals(List.of("new-a", "new-c"), names(h.client.tools()));
    assertEquals(4, h.transport.sent("tools/list").size(), "no listing after the fresh one");
    assertEquals(List.of(), h.toolsChangedCalls, "connect() itself hands out the fresh list");
    assertEquals(0, h.pendingRequests());
  }

  @Test
  void listChangedBetweenPagesWhileReadyGivesOneFreshListing(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("a");
    Future<List<JsonObject>> listing = h.client.listTools();
    Future<List<JsonObject>> joined = h.client.listTools();
    JsonObject p1 = get(h.transport.sentMessage("tools/list", 2));
    await(h.transport.respond(p1.getValue("id"), page("c2", "a", "b")));
    JsonObject p2 = get(h.transport.sentMessage("tools/list", 3));

    await(h.transport.notify(LIST_CHANGED, null));
    await(h.transport.notify(LIST_CHANGED, null));
    await(h.transport.respond(p2.getValue("id"), page(null, "c-new")));
    JsonObject fresh = get(h.transport.sentMessage("tools/list", 4));
    assertNull(cursorOf(fresh));
    assertFalse(listing.isComplete(), "the mixed listing is not handed out");
    await(h.transport.respond(fresh.getValue("id"), page(null, "a", "b2")));

    assertEquals(List.of("a", "b2"), names(await(listing)));
    assertEquals(List.of("a", "b2"), names(await(joined)));
    assertEquals(List.of("a", "b2"), names(get(h.toolsChanged(1))));
    h.onContext(() -> null);
    assertEquals(1, h.toolsChangedCalls.size(), "two notifications, one relisting reported");
    assertEquals(4, h.transport.sent("tools/list").size());
    assertEquals(List.of("a", "b2"), names(h.client.tools()));
  }

  @Test
  void listChangedWhileIdleRelistsOnce(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("a");
    h.transport.respondTo("tools/list", req -> page(null, "a", "b"));
    await(h.transport.notify(LIST_CHANGED, null));
    assertEquals(List.of("a", "b"), names(get(h.toolsChanged(1))));
    h.onContext(() -> null);
    assertEquals(2, h.transport.sent("tools/list").size());
    assertEquals(1, h.toolsChangedCalls.size());
    assertEquals(List.of("a", "b"), names(h.client.tools()));
  }

  @Test
  void toolListThatNeverSettlesFailsTheListingAndKeepsTheLastGoodOne(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("a");
    Future<List<JsonObject>> listing = h.client.listTools();
    int sent = 1;
    while (!listing.isComplete() && sent < 200) {
      sent++;
      JsonObject req = get(h.transport.sentMessage("tools/list", sent));
      await(h.transport.notify(LIST_CHANGED, null));
      await(h.transport.respond(req.getValue("id"), page(null, "v" + sent)));
    }
    McpException e = awaitFailure(listing, Kind.PROTOCOL);
    assertTrue(e.getMessage().contains("changing"), e.getMessage());
    assertEquals(List.of("a"), names(h.client.tools()));
    assertEquals(0, h.pendingRequests());

    h.transport.respondTo("tools/list", req -> page(null, "settled"));
    assertEquals(List.of("settled"), names(await(h.client.listTools())));
    assertEquals(List.of("settled"), names(get(h.toolsChanged(1))));
  }

  // ---- responses with ids the client never used -------------------------------------------

  @Test
  void responseWithUnknownIdIsDroppedAndClientStaysUsable(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    await(h.transport.respond(987654, ClientHarness.text("nobody asked")));
    assertTrue(logs.contains("[" + h.name + "] dropped a response with unknown id 987654"));

    Future<JsonObject> call = h.client.callTool("echo", new JsonObject(), null);
    Object id = get(h.transport.sentMessage("tools/call", 1)).getValue("id");
    await(h.transport.respond(id, ClientHarness.text("first")));
    await(h.transport.respond(id, ClientHarness.text("duplicate")));
    assertEquals("first", ClientHarness.textOf(await(call)), "a duplicate response changes nothing");
    assertTrue(logs.contains("[" + h.name + "] dropped a response with unknown id " + id));
    assertEquals(0, h.pendingRequests());
    assertEquals(Status.READY, h.client.status());
  }

  @Test
  void errorResponseWithoutAUsableIdIsLoggedAndIgnored(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    CompletableFuture<JsonObject> call = h.client.callTool("echo", new JsonObject(), null).toCompletionStage().toCompletableFuture();
    Object id = get(h.transport.sentMessage("tools/call", 1)).getValue("id");

    JsonObject parseError = new JsonObject().put("code", -32700).put("message", "Parse error " + h.name);
    await(h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("id", null).put("error", parseError)));
    await(h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("error", parseError)));
    await(h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("id", new JsonObject().put("x", 1)).put("result", new JsonObject())));
    assertTrue(logs.contains("[" + h.name + "] error response without a usable id: -32700 Parse error " + h.name));
    assertTrue(pending(call));

    await(h.transport.respond(id, ClientHarness.text("fine")));
    assertEquals("fine", ClientHarness.textOf(get(call)));
    assertEquals(Status.READY, h.client.status());
  }

  // ---- server requests and progress ------------------------------------------------------

  @Test
  void serverPingIsAnsweredAndUnknownRequestsRefused(Vertx vertx) {
    h = new ClientHarness(vertx);
    Future<JsonObject> connect = h.client.connect();
    JsonObject init = get(h.transport.sentMessage("initialize", 1));
    // The server may ping before the handshake is done.
    await(h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("id", "srv-1").put("method", "ping")));
    await(h.transport.respond(init.getValue("id"), initializeResult(false)));
    await(connect);
    await(h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("id", 41).put("method", "ping")));
    await(h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("id", 42).put("method", "sampling/createMessage")
      .put("params", new JsonObject())));

    List<JsonObject> responses = h.transport.sentResponses();
    assertEquals(3, responses.size(), responses.toString());
    assertEquals("srv-1", responses.get(0).getValue("id"));
    assertEquals(new JsonObject(), responses.get(0).getJsonObject("result"));
    assertEquals(41, responses.get(1).getValue("id"));
    assertEquals(new JsonObject(), responses.get(1).getJsonObject("result"));
    assertEquals(42, responses.get(2).getValue("id"));
    assertEquals(-32601, responses.get(2).getJsonObject("error").getInteger("code"));
    assertEquals(Status.READY, h.client.status());
  }

  @Test
  void progressForAnUnknownTokenIsIgnored(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("slow");
    List<ProgressUpdate> updates = new CopyOnWriteArrayList<>();
    Future<JsonObject> call = h.client.callTool("slow", new JsonObject(), new CallOptions().setProgressHandler(updates::add));
    JsonObject req = get(h.transport.sentMessage("tools/call", 1));
    Object token = req.getJsonObject("params").getJsonObject("_meta").getValue("progressToken");

    await(h.transport.notify("notifications/progress", new JsonObject().put("progressToken", 99_999_999).put("progress", 1)));
    await(h.transport.notify("notifications/progress", new JsonObject().put("progressToken", "no-such-token").put("progress", 1)));
    await(h.transport.notify("notifications/progress", new JsonObject().put("progressToken", new JsonObject()).put("progress", 1)));
    if (token instanceof Number) {
      await(h.transport.notify("notifications/progress", new JsonObject().put("progressToken", String.valueOf(token)).put("progress", 1)));
    }
    assertEquals(List.of(), updates);

    await(h.transport.notify("notifications/progress", new JsonObject().put("progressToken", token).put("progress", 0.5).put("total", 1)));
    assertEquals(1, updates.size());
    assertEquals(0.5, updates.get(0).progress());
    await(h.transport.respond(req.getValue("id"), ClientHarness.text("done")));
    assertEquals("done", ClientHarness.textOf(await(call)));
    await(h.transport.notify("notifications/progress", new JsonObject().put("progressToken", token).put("progress", 1)));
    assertEquals(1, updates.size(), "progress after the response is ignored");
    assertEquals(Status.READY, h.client.status());
  }
}
