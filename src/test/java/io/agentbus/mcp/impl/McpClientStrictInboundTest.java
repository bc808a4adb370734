package io.agentbus.mcp.impl;

import static io.agentbus.mcp.impl.ClientHarness.await;
import static io.agentbus.mcp.impl.ClientHarness.awaitFailure;
import static io.agentbus.mcp.impl.ClientHarness.get;
import static io.agentbus.mcp.impl.ClientHarness.text;
import static io.agentbus.mcp.impl.ClientHarness.textOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.limits.Suppressed;
import io.agentbus.mcp.McpClient.Status;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client holds what a server sends to JSON-RPC 2.0 and the MCP schema: a response that
 * breaks them fails the request it answers at once, naming what was wrong; what answers no
 * request is dropped, and a flood of it costs a few log lines and a count.
 */
@ExtendWith(VertxExtension.class)
class McpClientStrictInboundTest {

  private static final String CLIENT_LOG = "io.agentbus.mcp.impl.McpClientImpl";
  private static final int FLOOD = 100_000;

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private ClientHarness h;

  @AfterEach
  void noMisuse() {
    if (h != null) {
      assertEquals(List.of(), h.transport.violations());
    }
  }

  private ClientHarness ready(Vertx vertx) {
    h = new ClientHarness(vertx);
    h.connectReady("echo");
    return h;
  }

  /** Starts the {@code nth} tools/call and returns it with its request id. */
  private Map.Entry<Future<JsonObject>, Object> call(int nth) {
    Future<JsonObject> call = h.client.callTool("echo", new JsonObject(), null);
    Object id = get(h.transport.sentMessage("tools/call", nth)).getValue("id");
    return Map.entry(call, id);
  }

  private static JsonObject response(Object id) {
    return new JsonObject().put("jsonrpc", "2.0").put("id", id);
  }

  private void stillUsable() {
    Map.Entry<Future<JsonObject>, Object> next = call(h.transport.sent("tools/call").size() + 1);
    await(h.transport.respond(next.getValue(), text("fine")));
    assertEquals("fine", textOf(await(next.getKey())));
    assertEquals(0, h.pendingRequests());
    assertEquals(Status.READY, h.client.status());
  }

  // ---- ids of the wrong JSON type ----------------------------------------------------------

  @Test
  void aStringIdHoldingThePendingNumberIdFailsThatRequestAtOnce(Vertx vertx) {
    ready(vertx);
    Map.Entry<Future<JsonObject>, Object> call = call(1);
    Object id = call.getValue();
    assertTrue(id instanceof Number, "the client uses number ids: " + id);

    await(h.transport.respond(String.valueOf(id), text("wrong type")));
    McpException e = awaitFailure(call.getKey(), Kind.PROTOCOL);
    assertEquals("server '" + h.name + "' broke JSON-RPC 2.0 answering tools/call: response id \"" + id
      + "\" is a string; the request's id was the number " + id, e.getMessage());
    assertEquals(0, h.pendingRequests());

    await(h.transport.respond(id, text("too late")));
    assertTrue(logs.contains("[" + h.name + "] dropped a response with unknown id " + id), logs.lines()::toString);
    stillUsable();
  }

  @Test
  void aStringIdThatMatchesNoRequestIsDropped(Vertx vertx) {
    ready(vertx);
    Map.Entry<Future<JsonObject>, Object> call = call(1);
    await(h.transport.respond("987654", text("nobody asked")));
    await(h.transport.respond("x\ny", text("nobody asked")));
    assertTrue(logs.contains("[" + h.name + "] dropped a response with unknown id \"987654\""), logs.lines()::toString);
    assertTrue(logs.contains("[" + h.name + "] dropped a response with unknown id \"x\\ny\""), logs.lines()::toString);
    assertEquals(1, h.pendingRequests());
    await(h.transport.respond(call.getValue(), text("right")));
    assertEquals("right", textOf(await(call.getKey())));
  }

  // ---- the jsonrpc member ----------------------------------------------------------------

  @Test
  void aResponseThatIsNotJsonRpc20FailsTheRequestItAnswers(Vertx vertx) {
    ready(vertx);
    Map<Object, String> versions = Map.of(
      "1.0", "\"jsonrpc\" is the string \"1.0\", not the string \"2.0\"",
      2.0, "\"jsonrpc\" is the number 2.0, not the string \"2.0\"",
      new JsonObject(), "\"jsonrpc\" is an object, not the string \"2.0\"");
    int n = 0;
    for (Map.Entry<Object, String> v : versions.entrySet()) {
      Map.Entry<Future<JsonObject>, Object> call = call(++n);
      await(h.transport.deliver(response(call.getValue()).put("jsonrpc", v.getKey()).put("result", text("old"))));
      McpException e = awaitFailure(call.getKey(), Kind.PROTOCOL);
      assertEquals("server '" + h.name + "' broke JSON-RPC 2.0 answering tools/call: " + v.getValue(), e.getMessage());
    }
    Map.Entry<Future<JsonObject>, Object> call = call(++n);
    await(h.transport.deliver(new JsonObject().put("id", call.getValue()).put("result", text("no version"))));
    assertEquals("server '" + h.name + "' broke JSON-RPC 2.0 answering tools/call: \"jsonrpc\" is missing",
      awaitFailure(call.getKey(), Kind.PROTOCOL).getMessage());
    call = call(++n);
    await(h.transport.deliver(new JsonObject().put("jsonrpc", (Object) null).put("id", call.getValue())
      .put("error", new JsonObject().put("code", 1).put("message", "m"))));
    assertEquals("server '" + h.name + "' broke JSON-RPC 2.0 answering tools/call: \"jsonrpc\" is null, not \"2.0\"",
      awaitFailure(call.getKey(), Kind.PROTOCOL).getMessage());
    stillUsable();
  }

  @Test
  void requestsAndNotificationsThatAreNotJsonRpc20AreDropped(Vertx vertx) {
    ready(vertx);
    await(h.transport.deliver(new JsonObject().put("jsonrpc", "1.0").put("method", "notifications/tools/list_changed")));
    await(h.transport.deliver(new JsonObject().put("id", 7).put("method", "ping")));
    await(h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("id", 8).put("method", "ping")));

    assertEquals(1, h.transport.sent("tools/list").size(), "no relisting for a 1.0 notification");
    List<JsonObject> responses = h.transport.sentResponses();
    assertEquals(1, responses.size(), "only the 2.0 ping is answered: " + responses);
    assertEquals(8, responses.get(0).getValue("id"));
    assertTrue(logs.contains("WARN " + CLIENT_LOG + " [" + h.name + "] dropped a message that is not JSON-RPC 2.0 "
      + "(notifications/tools/list_changed): \"jsonrpc\" is the string \"1.0\", not the string \"2.0\""), logs.lines()::toString);
    assertTrue(logs.contains("[" + h.name + "] dropped a message that is not JSON-RPC 2.0 (ping): \"jsonrpc\" is missing"));
    stillUsable();
  }

  @Test
  void aResponseWithBothResultAndErrorFailsTheRequest(Vertx vertx) {
    ready(vertx);
    Map.Entry<Future<JsonObject>, Object> call = call(1);
    await(h.transport.deliver(response(call.getValue()).put("result", text("yes"))
      .put("error", new JsonObject().put("code", -1).put("message", "no"))));
    assertEquals("server '" + h.name + "' broke JSON-RPC 2.0 answering tools/call: the response has both \"result\" and \"error\"",
      awaitFailure(call.getKey(), Kind.PROTOCOL).getMessage());
    stillUsable();
  }

  @Test
  void anErrorThatIsNotAJsonRpcErrorObjectIsAProtocolError(Vertx vertx) {
    ready(vertx);
    Map<Object, String> errors = new java.util.LinkedHashMap<>();
    errors.put(new JsonObject().put("code", "E42").put("message", "boom"),
      "with a malformed error: \"error.code\" is the string \"E42\", not an integer (message: boom)");
    errors.put(new JsonObject().put("code", 1.5).put("message", "boom"),
      "with a malformed error: \"error.code\" is the number 1.5, not an integer (message: boom)");
    errors.put(new JsonObject().put("message", "boom"), "with a malformed error: \"error.code\" is missing (message: boom)");
    errors.put(new JsonObject().put("code", -32000), "with a malformed error: \"error.message\" is missing");
    errors.put(new JsonObject().put("code", -32000).put("message", new JsonArray()),
      "with a malformed error: \"error.message\" is an array, not a string");
    errors.put("boom", "with a malformed error: \"error\" is the string \"boom\", not an object");
    int n = 0;
    for (Map.Entry<Object, String> err : errors.entrySet()) {
      Map.Entry<Future<JsonObject>, Object> call = call(++n);
      await(h.transport.deliver(response(call.getValue()).put("error", err.getKey())));
      assertEquals("server '" + h.name + "' answered tools/call " + err.getValue(),
        awaitFailure(call.getKey(), Kind.PROTOCOL).getMessage());
    }
    Map.Entry<Future<JsonObject>, Object> call = call(++n);
    await(h.transport.deliver(response(call.getValue()).put("error", new JsonObject().put("code", -32602)
      .put("message", "Unknown tool").put("data", "echo2"))));
    McpException e = awaitFailure(call.getKey(), Kind.RPC_ERROR);
    assertEquals(-32602, e.rpcCode());
    assertEquals("echo2", e.data());
    stillUsable();
  }

  // ---- CallToolResult --------------------------------------------------------------------

  private McpException callFailsWith(int nth, JsonObject result) {
    Map.Entry<Future<JsonObject>, Object> call = call(nth);
    await(h.transport.respond(call.getValue(), result));
    return awaitFailure(call.getKey(), Kind.PROTOCOL);
  }

  @Test
  void aToolResultWhoseIsErrorIsNotABooleanIsAProtocolError(Vertx vertx) {
    ready(vertx);
    McpException e = callFailsWith(1, text("it broke").put("isError", "yes"));
    assertEquals("server '" + h.name + "' answered tools/call with an invalid CallToolResult: "
      + "\"isError\" is the string \"yes\", not a boolean", e.getMessage());
    assertTrue(callFailsWith(2, text("x").put("isError", 1)).getMessage().endsWith("\"isError\" is the number 1, not a boolean"));
    stillUsable();
  }

  @Test
  void toolResultsThatBreakTheSchemaNameTheMember(Vertx vertx) {
    ready(vertx);
    JsonObject textBlock = new JsonObject().put("type", "text").put("text", "t");
    Map<JsonObject, String> cases = new java.util.LinkedHashMap<>();
    cases.put(new JsonObject().put("content", "hello"), "\"content\" is the string \"hello\", not an array");
    cases.put(new JsonObject().put("content", new JsonObject()), "\"content\" is an object, not an array");
    cases.put(new JsonObject().put("content", new JsonArray().add("x")), "content[0] is the string \"x\", not a content block object");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", 5))),
      "content[0].type is the number 5, not a string");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("text", "t"))), "content[0].type is missing");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "text"))), "content[0].text is missing");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", 5))),
      "content[0].text is the number 5, not a string");
    cases.put(new JsonObject().put("content", new JsonArray().add(textBlock)
        .add(new JsonObject().put("type", "image").put("data", "aGk="))), "content[1].mimeType is missing");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "audio").put("data", 1)
      .put("mimeType", "audio/wav"))), "content[0].data is the number 1, not a string");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "resource_link")
      .put("uri", "file:///a").put("name", "a").put("size", "big"))), "content[0].size is the string \"big\", not a number");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "resource_link")
      .put("uri", "file:///a"))), "content[0].name is missing");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "resource_link")
      .put("uri", "file:///a").put("name", "a").put("mimeType", 3))), "content[0].mimeType is the number 3, not a string");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "resource")
      .put("resource", new JsonObject().put("uri", "file:///a")))),
      "content[0].resource has neither a string \"text\" nor a string \"blob\"");
    cases.put(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "resource")
      .put("resource", "file:///a"))), "content[0].resource is the string \"file:///a\", not an object");
    cases.put(new JsonObject().put("content", new JsonArray().add(textBlock.copy().put("annotations", 5))),
      "content[0].annotations is the number 5, not an object");
    cases.put(text("t").put("structuredContent", new JsonArray().add(1)), "\"structuredContent\" is an array, not an object");
    cases.put(text("t").put("_meta", "m"), "\"_meta\" is the string \"m\", not an object");
    int n = 0;
    for (Map.Entry<JsonObject, String> c : cases.entrySet()) {
      McpException e = callFailsWith(++n, c.getKey());
      assertEquals("server '" + h.name + "' answered tools/call with an invalid CallToolResult: " + c.getValue(), e.getMessage());
    }
    stillUsable();
  }

  @Test
  void toolResultsMayLeaveOutWhatIsOptionalAndCarryWhatIsNew(Vertx vertx) {
    ready(vertx);
    List<JsonObject> valid = List.of(
      new JsonObject(),
      new JsonObject().put("content", new JsonArray()).put("isError", false),
      text("failed").put("isError", true).put("_meta", new JsonObject().put("k", 1)),
      new JsonObject().put("structuredContent", new JsonObject().put("temp", 21)),
      new JsonObject().put("content", new JsonArray()
        .add(new JsonObject().put("type", "text").put("text", "t").put("annotations", new JsonObject().put("priority", 1)))
        .add(new JsonObject().put("type", "image").put("data", "aGk=").put("mimeType", "image/png"))
        .add(new JsonObject().put("type", "audio").put("data", "aGk=").put("mimeType", "audio/wav"))
        .add(new JsonObject().put("type", "resource_link").put("uri", "file:///a").put("name", "a").put("size", 3))
        .add(new JsonObject().put("type", "resource").put("resource", new JsonObject().put("uri", "file:///b").put("blob", "aGk=")))
        .add(new JsonObject().put("type", "resource").put("resource", new JsonObject().put("uri", "file:///c").put("text", "c")))
        .add(new JsonObject().put("type", "video-from-the-future").put("frames", 24)))
        .put("somethingNew", "kept"));
    int n = 0;
    for (JsonObject result : valid) {
      Map.Entry<Future<JsonObject>, Object> call = call(++n);
      await(h.transport.respond(call.getValue(), result));
      assertEquals(result, await(call.getKey()));
    }
  }

  // ---- floods ----------------------------------------------------------------------------

  /** Lines of {@code logger} that contain {@code text}, summaries left out. */
  private long lines(String logger, String text) {
    return logs.lines().stream().filter(l -> l.contains(" " + logger + " ") && l.contains(text) && !l.contains("suppressed")).count();
  }

  @Test
  void aFloodOfResponsesWithUnknownIdsCostsAFewWarningsAndACount(Vertx vertx) {
    ready(vertx);
    h.onContext(() -> {
      for (int i = 0; i < FLOOD; i++) {
        h.transport.deliver(response(1_000_000 + i).put("result", new JsonObject()));
      }
      return null;
    });
    stillUsable();
    await(h.client.close());
    long logged = lines(CLIENT_LOG, "dropped a response with unknown id");
    assertTrue(logged >= 5 && logged <= 10, "logged " + logged);
    assertEquals(FLOOD, logged + Suppressed.count(logs.lines(), h.name, "responses that answer no pending request"),
      logs.lines()::toString);
  }

  @Test
  void aFloodOfMalformedMessagesCostsAFewWarningsAndACount(Vertx vertx) {
    ready(vertx);
    h.onContext(() -> {
      for (int i = 0; i < FLOOD; i++) {
        h.transport.deliver(i % 2 == 0 ? new JsonObject().put("jsonrpc", "2.0")
          : new JsonObject().put("jsonrpc", "1.0").put("method", "notifications/message"));
      }
      return null;
    });
    stillUsable();
    await(h.client.close());
    long logged = lines(CLIENT_LOG, "dropped a message");
    assertTrue(logged >= 5 && logged <= 10, "logged " + logged);
    assertEquals(FLOOD, logged + Suppressed.count(logs.lines(), h.name, "messages that are not JSON-RPC 2.0"));
  }

  @Test
  void aFloodOfRefusedServerRequestsIsAllAnsweredButLoggedAFewTimes(Vertx vertx) {
    ready(vertx);
    int requests = 2_000;
    h.onContext(() -> {
      for (int i = 0; i < requests; i++) {
        h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("id", "s" + i).put("method", "sampling/createMessage"));
      }
      return null;
    });
    assertEquals(requests, h.transport.sentResponses().size());
    await(h.client.close());
    long logged = lines(CLIENT_LOG, "refused server request sampling/createMessage");
    assertTrue(logged >= 5 && logged <= 10, "logged " + logged);
    assertEquals(requests, logged + Suppressed.count(logs.lines(), h.name, "refused server requests"));
  }

  @Test
  void aFloodOfLogNotificationsIsLimitedPerLevel(Vertx vertx) {
    ready(vertx);
    String serverLog = "io.agentbus.mcp.serverlog";
    h.onContext(() -> {
      for (int i = 0; i < FLOOD; i++) {
        h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/message")
          .put("params", new JsonObject().put("level", "warning").put("data", "disk on fire " + i)));
      }
      h.transport.deliver(new JsonObject().put("jsonrpc", "2.0").put("method", "notifications/message")
        .put("params", new JsonObject().put("level", "critical").put("logger", "db").put("data", "x".repeat(10_000))));
      return null;
    });
    await(h.client.close());
    long logged = lines(serverLog, "disk on fire");
    assertTrue(logged >= 50 && logged <= 60, "logged " + logged);
    assertEquals(FLOOD, logged + Suppressed.count(logs.lines(), h.name, "log notifications"), logs.lines()::toString);
    assertTrue(logs.contains("ERROR " + serverLog + " [" + h.name + "] db: " + "x".repeat(ServerLog.MAX_CHARS - 4) + "... (critical)"),
      "another level has its own limit, and a long line is cut");
  }
}
