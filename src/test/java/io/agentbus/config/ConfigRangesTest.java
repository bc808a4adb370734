package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.conversation.ConversationOptions;
import io.agentbus.dispatch.DispatcherOptions;
import io.agentbus.http.HttpApiOptions;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.model.ModelOptions;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every number of agent.json and mcp.json, and of the JSON constructors of the options they
 * feed, accepts exactly the range of its setter: the bounds pass, one past them is an error
 * naming the field and the range, and so are a string, a fraction and a number that would
 * wrap (above 2^31 for an int, above 2^63 for a long).
 */
class ConfigRangesTest {

  private static final long INT = Integer.MAX_VALUE;
  private static final long LONG = Long.MAX_VALUE;

  /** path in agent.json, min, max (the setter's range) */
  static Stream<Arguments> agentFields() {
    return Stream.of(
      Arguments.of("model.maxRetries", 0, INT),
      Arguments.of("model.requestTimeoutMs", 1, LONG),
      Arguments.of("model.connectTimeoutMs", 1, INT),
      Arguments.of("model.maxConnections", 1, INT),
      Arguments.of("model.maxWaitQueueSize", -1, INT),
      Arguments.of("model.http2MaxConnections", 1, INT),
      Arguments.of("model.maxEventSize", 1024, INT),
      Arguments.of("model.demoLatencyMs", 0, LONG),
      Arguments.of("maxTokens", 1, INT),
      Arguments.of("loop.maxIterations", 1, INT),
      Arguments.of("loop.tokenBudget", 0, LONG),
      Arguments.of("loop.toolTimeoutMs", 1, LONG),
      Arguments.of("loop.turnTimeoutMs", 1, LONG),
      Arguments.of("loop.maxActiveTurns", 1, INT),
      Arguments.of("history.lastTurns", 0, INT),
      Arguments.of("history.toolResultMaxChars", 0, INT),
      Arguments.of("conversationInstances", 1, INT),
      Arguments.of("maxConversations", 1, INT),
      Arguments.of("conversationIdleTimeoutMs", 0, LONG),
      Arguments.of("drainTimeoutMs", 0, LONG),
      Arguments.of("http.maxBodyBytes", 1, LONG),
      Arguments.of("http.maxInFlightTurns", 1, INT),
      Arguments.of("http.retryAfterSeconds", 1, INT),
      Arguments.of("http.headerTimeoutMs", 1, LONG),
      Arguments.of("http.idleTimeoutMs", 1, LONG),
      Arguments.of("http.maxConnections", 1, INT));
  }

  /** field of an mcp.json server entry, min, max */
  static Stream<Arguments> mcpFields() {
    return Stream.of(
      Arguments.of("timeoutMs", 1, LONG),
      Arguments.of("connectTimeoutMs", 1, LONG),
      Arguments.of("maxTotalTimeoutMs", 1, LONG),
      Arguments.of("maxMessageBytes", 1, INT),
      Arguments.of("maxConcurrentCalls", 1, INT),
      Arguments.of("maxPendingRequests", 1, INT),
      Arguments.of("maxQueuedCalls", 1, INT),
      Arguments.of("shutdownGraceMs", 1, LONG),
      Arguments.of("terminateGraceMs", 1, LONG),
      Arguments.of("restart.initialBackoffMs", 1, LONG),
      Arguments.of("restart.maxBackoffMs", 1, LONG),
      Arguments.of("restart.downAfterFailures", 1, INT));
  }

  private static JsonObject at(String path, Object value) {
    String[] parts = path.split("\\.");
    JsonObject leaf = new JsonObject().put(parts[parts.length - 1], value);
    for (int i = parts.length - 2; i >= 0; i--) {
      leaf = new JsonObject().put(parts[i], leaf);
    }
    return leaf;
  }

  private static String range(long min, long max) {
    return max == LONG ? "an integer >= " + min : "an integer from " + min + " to " + max;
  }

  /** One past the max of a long: what Jackson reads as a BigInteger. */
  private static final BigInteger LONG_PLUS_ONE = BigInteger.valueOf(LONG).add(BigInteger.ONE);

  private static Object abovePast(long max) {
    return max == LONG ? LONG_PLUS_ONE : max + 1;
  }

  /** Checks the bounds and the wrong values of one field against a parser. */
  private static void checkRange(Function<Object, ?> parse, Class<? extends RuntimeException> error, String name,
                                 long min, long max, String prefix) {
    assertDoesNotThrow(() -> parse.apply(min), name + " = " + min);
    assertDoesNotThrow(() -> parse.apply(max), name + " = " + max);
    assertDoesNotThrow(() -> parse.apply((double) Math.max(min, 2)), name + " = 2.0 is an integer");
    String expected = prefix + "field '" + name + "' must be " + (name.endsWith("maxWaitQueueSize")
      ? "-1 (unbounded) or an integer from 0 to " + INT : range(min, max));
    List<Object> bad = List.of(min - 1, abovePast(max), "12", 1.5, true);
    for (Object v : bad) {
      RuntimeException e = assertThrows(error, () -> parse.apply(v), name + " = " + v + " was accepted");
      assertTrue(e.getMessage().startsWith(expected), e.getMessage() + "\nexpected: " + expected);
    }
    if (max == INT) {
      // the old reads took intValue(): 2^32 + 5 became 5 and passed every check
      RuntimeException e = assertThrows(error, () -> parse.apply(4_294_967_296L + 5), name + " wrapped");
      assertTrue(e.getMessage().contains("(was 4294967301)"), e.getMessage());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("agentFields")
  void agentJsonFieldsHaveTheRangeOfTheirSetter(String path, long min, long max) {
    checkRange(v -> AgentConfig.fromJson(at(path, v), Map.of()), ConfigException.class, path, min, max, "agent config: ");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mcpFields")
  void mcpJsonFieldsHaveTheRangeOfTheirSetter(String path, long min, long max) {
    checkRange(v -> {
      JsonObject entry = at(path, v).put("command", "srv");
      if (path.equals("maxPendingRequests")) {
        entry.put("maxConcurrentCalls", 1);
      }
      return McpConfig.fromJson(new JsonObject().put("mcpServers", new JsonObject().put("a", entry)), EnvExpander.of(Map.of()));
    }, ConfigException.class, path, min, max, "server 'a': ");
  }

  @Test
  void theValuesAtTheBoundsAreTheValuesRead() {
    AgentConfig c = AgentConfig.fromJson(new JsonObject("""
      {"maxTokens": 2147483647, "model": {"maxWaitQueueSize": -1, "maxEventSize": 1024, "requestTimeoutMs": 9223372036854775807},
       "loop": {"tokenBudget": 0}, "http": {"maxBodyBytes": 9223372036854775807}}"""), Map.of());
    assertEquals(Integer.MAX_VALUE, c.conversation().getMaxTokens());
    assertEquals(-1, c.conversation().getModel().getMaxWaitQueueSize());
    assertEquals(1024, c.conversation().getModel().getMaxEventSize());
    assertEquals(Long.MAX_VALUE, c.conversation().getModel().getRequestTimeoutMs());
    assertEquals(Long.MAX_VALUE, new HttpApiOptions(c.http()).getMaxBodyBytes());
    McpServerOptions s = McpConfig.fromJson(new JsonObject(
      "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"maxMessageBytes\": 2147483647, \"restart\": {\"downAfterFailures\": 1}}}}"),
      EnvExpander.of(Map.of())).servers().get(0);
    assertEquals(Integer.MAX_VALUE, s.getMaxMessageBytes());
    assertEquals(1, s.getDownAfterFailures());
  }

  @Test
  void aTokenInTheWrongShapeIsNeverShownInTheError() {
    String message = assertThrows(ConfigException.class, () -> AgentConfig.fromJson(
      new JsonObject("{\"http\": {\"tokens\": {\"tok-s3cret-91\": 5}}}"), Map.of())).getMessage();
    assertEquals("agent config: field 'http.tokens' must map every key to a string", message);
    assertFalse(message.contains("s3cret"));
    assertEquals("agent config: field 'http.tokens' must not hold an empty token or tenant name", assertThrows(
      ConfigException.class, () -> AgentConfig.fromJson(new JsonObject("{\"http\": {\"tokens\": {\"tok\": \"\"}}}"), Map.of()))
      .getMessage());
  }

  /** options class, field, min, max: what the JSON constructor of each options class accepts */
  static Stream<Arguments> optionsFields() {
    Function<JsonObject, Object> model = ModelOptions::new;
    Function<JsonObject, Object> conversation = ConversationOptions::new;
    Function<JsonObject, Object> http = HttpApiOptions::new;
    Function<JsonObject, Object> dispatcher = DispatcherOptions::new;
    return Stream.of(
      Arguments.of("ModelOptions", model, "maxRetries", 0, INT),
      Arguments.of("ModelOptions", model, "requestTimeoutMs", 1, LONG),
      Arguments.of("ModelOptions", model, "connectTimeoutMs", 1, INT),
      Arguments.of("ModelOptions", model, "maxConnections", 1, INT),
      Arguments.of("ModelOptions", model, "maxWaitQueueSize", -1, INT),
      Arguments.of("ModelOptions", model, "http2MaxConnections", 1, INT),
      Arguments.of("ModelOptions", model, "maxEventSize", 1024, INT),
      Arguments.of("ConversationOptions", conversation, "maxTokens", 1, INT),
      Arguments.of("ConversationOptions", conversation, "maxIterations", 1, INT),
      Arguments.of("ConversationOptions", conversation, "tokenBudget", 0, LONG),
      Arguments.of("ConversationOptions", conversation, "toolTimeoutMs", 1, LONG),
      Arguments.of("ConversationOptions", conversation, "turnTimeoutMs", 1, LONG),
      Arguments.of("ConversationOptions", conversation, "maxConversations", 1, INT),
      Arguments.of("ConversationOptions", conversation, "maxActiveTurns", 1, INT),
      Arguments.of("ConversationOptions", conversation, "idleTimeoutMs", 0, LONG),
      Arguments.of("HttpApiOptions", http, "port", 0, 65535),
      Arguments.of("HttpApiOptions", http, "maxBodyBytes", 1, LONG),
      Arguments.of("HttpApiOptions", http, "maxInFlightTurns", 1, INT),
      Arguments.of("HttpApiOptions", http, "retryAfterSeconds", 1, INT),
      Arguments.of("HttpApiOptions", http, "headerTimeoutMs", 1, LONG),
      Arguments.of("HttpApiOptions", http, "idleTimeoutMs", 1, LONG),
      Arguments.of("HttpApiOptions", http, "maxConnections", 1, INT),
      Arguments.of("DispatcherOptions", dispatcher, "timeoutMs", 1, LONG),
      Arguments.of("DispatcherOptions", dispatcher, "sendTimeoutMarginMs", 0, LONG),
      Arguments.of("DispatcherOptions", dispatcher, "fallbackSendTimeoutMs", 2, LONG),
      Arguments.of("DispatcherOptions", dispatcher, "maxResultChars", 200, INT),
      Arguments.of("DispatcherOptions", dispatcher, "maxImageBytes", 0, INT));
  }

  @ParameterizedTest(name = "{0}.{2}")
  @MethodSource("optionsFields")
  void optionsJsonConstructorsHaveTheRangeOfTheirSetters(String type, Function<JsonObject, Object> ctor, String field,
                                                          long min, long max) {
    String expected = "field '" + field + "' must be " + (field.equals("maxWaitQueueSize") ? range(-1, INT) : range(min, max));
    assertDoesNotThrow(() -> ctor.apply(new JsonObject().put(field, min)), type + "." + field + " = " + min);
    assertDoesNotThrow(() -> ctor.apply(new JsonObject().put(field, max)), type + "." + field + " = " + max);
    for (Object v : List.of(min - 1, abovePast(max), "12", 1.5, false)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ctor.apply(new JsonObject().put(field, v)), type + "." + field + " = " + v + " was accepted");
      assertTrue(e.getMessage().startsWith(expected), e.getMessage() + "\nexpected: " + expected);
    }
  }

  @Test
  void optionsJsonConstructorsRefuseWrongTypesInsteadOfDefaulting() {
    assertEquals("field 'http2' must be true or false (was a string)",
      assertThrows(IllegalArgumentException.class, () -> new ModelOptions(new JsonObject().put("http2", "false"))).getMessage());
    assertEquals("field 'model' must be a string (was 5)",
      assertThrows(IllegalArgumentException.class, () -> new ModelOptions(new JsonObject().put("model", 5))).getMessage());
    assertEquals("field 'stream' must be true or false (was 1)",
      assertThrows(IllegalArgumentException.class, () -> new ConversationOptions(new JsonObject().put("stream", 1))).getMessage());
    assertEquals("field 'history' must be an object (was an array)", assertThrows(IllegalArgumentException.class,
      () -> new ConversationOptions(new JsonObject().put("history", new io.vertx.core.json.JsonArray()))).getMessage());
    assertEquals("field 'lastTurns' must be an integer from 0 to 2147483647 (was 4294967296)", assertThrows(
      IllegalArgumentException.class,
      () -> new ConversationOptions(new JsonObject().put("history", new JsonObject().put("lastTurns", 4_294_967_296L))))
      .getMessage());
    assertEquals("field 'timeoutMs' must be an integer >= 1 (was a string)", assertThrows(IllegalArgumentException.class,
      () -> new DispatcherOptions(new JsonObject().put("timeoutMs", "5000"))).getMessage());
    // and the round trips still hold
    ModelOptions m = new ModelOptions().setMaxWaitQueueSize(-1).setMaxEventSize(1024);
    assertEquals(m.toJson(), new ModelOptions(m.toJson()).toJson());
    ConversationOptions c = new ConversationOptions().setToolTimeoutMs(5L).setSystem("s");
    assertEquals(c.toJson(), new ConversationOptions(c).toJson());
    DispatcherOptions d = new DispatcherOptions().setTimeoutMs(5);
    assertEquals(d.toJson(), new DispatcherOptions(d).toJson());
  }
}
