package io.agentbus.mcp.impl;

import static io.agentbus.mcp.impl.ClientHarness.await;
import static io.agentbus.mcp.impl.ClientHarness.awaitFailure;
import static io.agentbus.mcp.impl.ClientHarness.get;
import static io.agentbus.mcp.impl.ClientHarness.initializeResult;
import static io.agentbus.mcp.impl.ClientHarness.page;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.limits.Suppressed;
import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient.Status;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Races of the client state machine over a scripted in-memory transport: a response against
 * its timer, {@code close()} and a lost connection during connect, and a lost connection
 * with calls in flight.
 */
@ExtendWith(VertxExtension.class)
class McpClientRacesTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private ClientHarness h;

  @AfterEach
  void noMisuse() {
    if (h != null) {
      assertEquals(List.of(), h.transport.violations());
    }
  }

  private List<Object> cancelledIds() {
    return h.transport.sent("notifications/cancelled").stream()
      .map(m -> m.getJsonObject("params").getValue("requestId")).toList();
  }

  private boolean droppedLogged(Object id) {
    return logs.contains("[" + h.name + "] dropped a response with unknown id " + id);
  }

  // ---- a response against its timer ----------------------------------------------------

  @Test
  void timedOutCallIsCancelledOnceAndItsLateResponseDropped(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    Future<JsonObject> call = h.client.callTool("echo", new JsonObject(), new CallOptions().setTimeoutMs(50));
    Object id = get(h.transport.sentMessage("tools/call", 1)).getValue("id");

    McpException timeout = awaitFailure(call, Kind.TIMEOUT);
    assertTrue(timeout.getMessage().contains("tools/call"), timeout.getMessage());
    await(h.transport.respond(id, ClientHarness.text("late")));

    assertEquals(List.of(id), cancelledIds());
    assertEquals("timeout", h.transport.sent("notifications/cancelled").get(0).getJsonObject("params").getString("reason"));
    assertTrue(droppedLogged(id), "the late response is logged as dropped");
    assertEquals(0, h.pendingRequests());

    h.transport.respondTo("tools/call", req -> ClientHarness.text("again"));
    assertEquals("again", ClientHarness.textOf(await(h.client.callTool("echo", new JsonObject(), null))));
    assertEquals(List.of(id), cancelledIds());
  }

  @Test
  void responseDeliveredFromTheTimeoutItselfIsDropped(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    AtomicInteger completions = new AtomicInteger();
    AtomicReference<Object> idRef = new AtomicReference<>();
    // The response arrives at the very moment the request times out: from inside the
    // timeout's own callback, before the client has sent notifications/cancelled.
    Future<JsonObject> call = h.onContext(() -> {
      Future<JsonObject> f = h.client.callTool("echo", new JsonObject(), new CallOptions().setTimeoutMs(30));
      idRef.set(h.transport.sent("tools/call").get(0).getValue("id"));
      f.onComplete(ar -> completions.incrementAndGet());
      f.onFailure(err -> h.transport.respond(idRef.get(), ClientHarness.text("at the deadline")));
      return f;
    });

    awaitFailure(call, Kind.TIMEOUT);
    h.onContext(() -> null);
    assertEquals(1, completions.get());
    assertEquals(List.of(idRef.get()), cancelledIds());
    assertTrue(droppedLogged(idRef.get()));
    assertEquals(0, h.pendingRequests());
  }

  @Test
  void answeredCallIsNeverCancelled(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    Future<JsonObject> answered = h.client.callTool("echo", new JsonObject(), new CallOptions().setTimeoutMs(40));
    Object answeredId = get(h.transport.sentMessage("tools/call", 1)).getValue("id");
    await(h.transport.respond(answeredId, ClientHarness.text("in time")));
    assertEquals("in time", ClientHarness.textOf(await(answered)));

    // A later call with a longer timeout, never answered: its timer fires on the same event
    // loop after the answered call's timer would have, so by then any cancel would be sent.
    Future<JsonObject> unanswered = h.client.callTool("echo", new JsonObject(), new CallOptions().setTimeoutMs(250));
    Object unansweredId = get(h.transport.sentMessage("tools/call", 2)).getValue("id");
    awaitFailure(unanswered, Kind.TIMEOUT);
    h.onContext(() -> null);

    assertEquals(List.of(unansweredId), cancelledIds());
    assertEquals(0, h.pendingRequests());
  }

  @Test
  void manyResponsesRacingTheirTimersEachCompleteOnce(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    int n = 250;
    long timeoutMs = 20;
    long[] responseDelaysMs = {2, 15, 19, 20, 21, 25, 60};
    AtomicInteger[] completions = new AtomicInteger[n];
    Object[] ids = new Object[n];
    List<Future<JsonObject>> calls = new ArrayList<>();
    // Each call is answered before, around or after its timeout: some responses beat the
    // timer, some lose to it, some are due at the same moment (and an event loop that runs
    // late fires them together, in whatever order).
    for (int i = 0; i < n; i++) {
      int k = i;
      completions[k] = new AtomicInteger();
      calls.add(h.onContext(() -> {
        Future<JsonObject> f = h.client.callTool("echo", new JsonObject().put("i", k), new CallOptions().setTimeoutMs(timeoutMs));
        List<JsonObject> sent = h.transport.sent("tools/call");
        ids[k] = sent.get(sent.size() - 1).getValue("id");
        f.onComplete(ar -> completions[k].incrementAndGet());
        vertx.setTimer(responseDelaysMs[k % responseDelaysMs.length], t -> h.transport.respond(ids[k], ClientHarness.text("r" + k)));
        return f;
      }));
    }
    await(Future.join(calls).otherwiseEmpty());
    // Never answered and due after every response above: once it has timed out, every
    // timer and response of the race has fired.
    Future<JsonObject> sentinel = h.client.callTool("echo", new JsonObject(), new CallOptions().setTimeoutMs(300));
    Object sentinelId = get(h.transport.sentMessage("tools/call", n + 1)).getValue("id");
    awaitFailure(sentinel, Kind.TIMEOUT);
    h.onContext(() -> null);

    List<Object> cancelled = cancelledIds();
    int answered = 0;
    int timedOut = 0;
    for (int i = 0; i < n; i++) {
      Future<JsonObject> f = calls.get(i);
      assertEquals(1, completions[i].get(), "call " + i + " completed once");
      if (f.succeeded()) {
        answered++;
        assertEquals("r" + i, ClientHarness.textOf(f.result()));
        assertFalse(cancelled.contains(ids[i]), "answered call " + i + " was cancelled");
      } else {
        timedOut++;
        assertTrue(f.cause() instanceof McpException m && m.kind() == Kind.TIMEOUT, "call " + i + ": " + f.cause());
        assertEquals(1, cancelled.stream().filter(ids[i]::equals).count(), "cancels for timed-out call " + i);
      }
    }
    assertTrue(answered > 0 && timedOut > 0, "both outcomes occur: " + answered + " answered, " + timedOut + " timed out");
    assertEquals(timedOut + 1, cancelled.size());
    assertTrue(cancelled.contains(sentinelId));
    assertEquals(0, h.pendingRequests());
    // every late response was dropped: logged, or counted once the warnings were rate-limited
    await(h.client.close());
    long logged = logs.count("[" + h.name + "] dropped a response with unknown id ");
    assertEquals(timedOut, logged + Suppressed.count(logs.lines(), h.name, "responses that answer no pending request"),
      logs.lines()::toString);
  }

  @Test
  void initializeTimeoutNeverSendsCancelled(Vertx vertx) {
    h = new ClientHarness(vertx, ClientHarness.options().setConnectTimeoutMs(100));
    Future<JsonObject> connect = h.client.connect();
    get(h.transport.sentMessage("initialize", 1));
    awaitFailure(connect, Kind.TIMEOUT);
    h.onContext(() -> null);
    assertEquals(List.of(), h.transport.sent("notifications/cancelled"), "initialize MUST NOT be cancelled");
    assertEquals(1, h.transport.closeCalls());
    assertEquals(0, h.pendingRequests());
    assertEquals(Status.CLOSED, h.client.status());
  }

  // ---- close() during connect ------------------------------------------------------------

  @Test
  void closeWhileInitializeIsPending(Vertx vertx) {
    h = new ClientHarness(vertx);
    AtomicInteger completions = new AtomicInteger();
    Future<JsonObject> connect = h.onContext(() -> h.client.connect().onComplete(ar -> completions.incrementAndGet()));
    JsonObject init = get(h.transport.sentMessage("initialize", 1));

    await(h.client.close());
    McpException e = awaitFailure(connect, Kind.CONNECTION_CLOSED);
    assertTrue(e.getMessage().contains("'" + h.name + "'") && e.getMessage().contains("closed"), e.getMessage());
    assertEquals(Status.CLOSED, h.client.status());
    assertEquals(0, h.pendingRequests());

    await(h.transport.respond(init.getValue("id"), initializeResult(true)));
    await(h.client.close());
    assertEquals(1, completions.get());
    assertEquals(1, h.transport.closeCalls());
    assertEquals(Status.CLOSED, h.client.status());
    assertNull(h.client.initializeResult());
    assertEquals(List.of(), h.transport.sent("notifications/initialized"));
    assertEquals(List.of(), h.transport.sent("tools/list"));
    assertTrue(droppedLogged(init.getValue("id")));
    assertEquals(List.of(), h.closeHandlerCalls, "close() is not a crash");
  }

  @Test
  void closeWhileToolsListPagingIsPending(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.transport.respondTo("initialize", req -> initializeResult(true));
    AtomicInteger completions = new AtomicInteger();
    Future<JsonObject> connect = h.onContext(() -> h.client.connect().onComplete(ar -> completions.incrementAndGet()));
    JsonObject first = get(h.transport.sentMessage("tools/list", 1));
    await(h.transport.respond(first.getValue("id"), page("c2", "a", "b")));
    JsonObject second = get(h.transport.sentMessage("tools/list", 2));
    assertEquals("c2", second.getJsonObject("params").getString("cursor"));

    await(h.client.close());
    awaitFailure(connect, Kind.CONNECTION_CLOSED);
    await(h.transport.respond(second.getValue("id"), page(null, "c")));

    assertEquals(1, completions.get());
    assertEquals(Status.CLOSED, h.client.status());
    assertEquals(List.of(), h.client.tools(), "no partial listing is kept");
    assertEquals(2, h.transport.sent("tools/list").size());
    assertEquals(0, h.pendingRequests());
    assertEquals(1, h.transport.closeCalls());
    assertEquals(List.of(), h.closeHandlerCalls);
    assertEquals(List.of(), h.toolsChangedCalls);
    awaitFailure(h.client.listTools(), Kind.NOT_CONNECTED);
  }

  @Test
  void closeWhileTransportStartIsPending(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.transport.holdStart().respondTo("initialize", req -> initializeResult(true));
    Future<JsonObject> connect = h.onContext(() -> h.client.connect());

    await(h.client.close());
    awaitFailure(connect, Kind.CONNECTION_CLOSED);
    // The transport finishes starting after all: the closed client must not start talking.
    await(h.transport.completeStart());
    h.onContext(() -> null);

    assertEquals(List.of(), h.transport.sent());
    assertEquals(Status.CLOSED, h.client.status());
    assertEquals(0, h.pendingRequests());
  }

  // ---- the connection ends on its own --------------------------------------------------

  @Test
  void connectionLostWhileInitializeIsPendingFailsConnectOnly(Vertx vertx) {
    h = new ClientHarness(vertx);
    AtomicInteger completions = new AtomicInteger();
    Future<JsonObject> connect = h.onContext(() -> h.client.connect().onComplete(ar -> completions.incrementAndGet()));
    get(h.transport.sentMessage("initialize", 1));

    await(h.transport.closeFromServer(new McpException(Kind.CONNECTION_CLOSED, "server exited with code 1")));
    McpException e = awaitFailure(connect, Kind.CONNECTION_CLOSED);
    assertTrue(e.getMessage().contains("exited with code 1"), e.getMessage());
    h.onContext(() -> null);
    assertEquals(1, completions.get());
    assertEquals(List.of(), h.closeHandlerCalls, "the failure is reported once, by connect()");
    assertEquals(Status.CLOSED, h.client.status());
    assertEquals(0, h.pendingRequests());
  }

  @Test
  void connectionLostWhileToolsListPagingFailsConnectOnly(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.transport.respondTo("initialize", req -> initializeResult(true));
    AtomicInteger completions = new AtomicInteger();
    Future<JsonObject> connect = h.onContext(() -> h.client.connect().onComplete(ar -> completions.incrementAndGet()));
    JsonObject first = get(h.transport.sentMessage("tools/list", 1));
    await(h.transport.respond(first.getValue("id"), page("c2", "a")));
    get(h.transport.sentMessage("tools/list", 2));

    await(h.transport.closeFromServer(new McpException(Kind.CONNECTION_CLOSED, "server exited with code 3")));
    awaitFailure(connect, Kind.CONNECTION_CLOSED);
    h.onContext(() -> null);
    assertEquals(1, completions.get());
    assertEquals(List.of(), h.closeHandlerCalls, "the failure is reported once, by connect()");
    assertEquals(List.of(), h.client.tools());
    assertEquals(Status.CLOSED, h.client.status());
    assertEquals(0, h.pendingRequests());
  }

  @Test
  void connectionLostFailsEveryPendingCallWithConnectionClosed(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    Future<JsonObject> call = h.client.callTool("echo", new JsonObject(), null);
    Future<Void> ping = h.client.ping();
    Future<List<JsonObject>> listing = h.client.listTools();
    get(h.transport.sentMessage("tools/call", 1));
    get(h.transport.sentMessage("ping", 1));
    get(h.transport.sentMessage("tools/list", 2));
    assertEquals(3, h.pendingRequests());

    // A transport that reports its end with a cause that is not an McpException.
    await(h.transport.closeFromServer(new IOException("pipe broken")));
    for (Future<?> f : List.of(call, ping, listing)) {
      McpException e = awaitFailure(f, Kind.CONNECTION_CLOSED);
      assertTrue(e.getMessage().contains("pipe broken"), e.getMessage());
    }
    await(h.transport.closeFromServer(new IOException("reported twice")));
    h.onContext(() -> null);

    assertEquals(1, h.closeHandlerCalls.size());
    McpException reported = (McpException) h.closeHandlerCalls.get(0);
    assertEquals(Kind.CONNECTION_CLOSED, reported.kind());
    assertSame(call.cause(), reported, "the callers and the close handler see the same failure");
    assertEquals(Status.CLOSED, h.client.status());
    assertEquals(0, h.pendingRequests());
    awaitFailure(h.client.callTool("echo", new JsonObject(), null), Kind.NOT_CONNECTED);

    await(h.client.close());
    assertEquals(1, h.closeHandlerCalls.size());
    assertEquals(Status.CLOSED, h.client.status());
    assertEquals(List.of(), h.transport.sent("notifications/cancelled"));
  }

  @Test
  void failedSendFailsTheCallAndLeavesNothingPending(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    h.transport.failSends(true);
    awaitFailure(h.client.callTool("echo", new JsonObject(), null), Kind.TRANSPORT);
    assertEquals(0, h.pendingRequests());
    h.transport.failSends(false).respondTo("tools/call", req -> ClientHarness.text("ok"));
    assertEquals("ok", ClientHarness.textOf(await(h.client.callTool("echo", new JsonObject(), null))));
  }
}
