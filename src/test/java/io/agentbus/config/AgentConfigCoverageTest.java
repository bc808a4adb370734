package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.conversation.ConversationOptions;
import io.agentbus.http.HttpApiOptions;
import io.agentbus.model.ModelOptions;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@code conf/agent.json} reaches every field of the options it feeds: a field added to
 * {@link ModelOptions}, {@link ConversationOptions} or {@link HttpApiOptions} fails here until
 * {@link AgentConfig} reads it (and this test gives it a value), instead of being silently
 * ignored.
 */
class AgentConfigCoverageTest {

  /** A value for every {@link ModelOptions} JSON field, none of them the default. */
  private static final JsonObject MODEL = new JsonObject()
    .put("provider", "openai")
    .put("apiKey", "sk-from-the-file")
    .put("baseUrl", "http://127.0.0.1:9/v1")
    .put("model", "some-model")
    .put("anthropicVersion", "2099-01-01")
    .put("maxRetries", 7)
    .put("requestTimeoutMs", 1234)
    .put("connectTimeoutMs", 2345)
    .put("maxConnections", 321)
    .put("maxWaitQueueSize", 55)
    .put("http2", false)
    .put("http2MaxConnections", 9)
    .put("promptCaching", false)
    .put("maxEventSize", 2048);

  /** Where each {@link ConversationOptions} JSON field lives in agent.json (the model: above). */
  private static final Map<String, String> CONVERSATION_PATHS = Map.ofEntries(
    Map.entry("system", "system"),
    Map.entry("maxTokens", "maxTokens"),
    Map.entry("stream", "stream"),
    Map.entry("maxIterations", "loop.maxIterations"),
    Map.entry("tokenBudget", "loop.tokenBudget"),
    Map.entry("toolTimeoutMs", "loop.toolTimeoutMs"),
    Map.entry("turnTimeoutMs", "loop.turnTimeoutMs"),
    Map.entry("maxActiveTurns", "loop.maxActiveTurns"),
    Map.entry("history", "history"),
    Map.entry("maxConversations", "maxConversations"),
    Map.entry("idleTimeoutMs", "conversationIdleTimeoutMs"),
    Map.entry("memoryBytes", "conversationMemoryBytes"),
    Map.entry("maxHistoryBytes", "maxHistoryBytes"),
    Map.entry("approval", "approvals.default"),
    Map.entry("approvalTimeoutMs", "approvals.timeoutMs"));

  /** A value for every {@link ConversationOptions} JSON field but the model, none of them the default. */
  private static final JsonObject CONVERSATION = new JsonObject()
    .put("system", "Be brief.")
    .put("maxTokens", 77)
    .put("stream", false)
    .put("maxIterations", 3)
    .put("tokenBudget", 5000)
    .put("toolTimeoutMs", 4321)
    .put("turnTimeoutMs", 120000)
    .put("maxActiveTurns", 12)
    .put("history", new JsonObject().put("lastTurns", 4).put("toolResultMaxChars", 300))
    .put("maxConversations", 13)
    .put("idleTimeoutMs", 60000)
    .put("memoryBytes", 123456789L)
    .put("maxHistoryBytes", 654321L)
    .put("approval", "always")
    .put("approvalTimeoutMs", 45000L);

  /**
   * A value for every {@link HttpApiOptions} JSON field agent.json sets, none of them the
   * default; {@code servers} is not configuration: {@code serve} fills it from mcp.json.
   */
  private static final JsonObject HTTP = new JsonObject()
    .put("host", "127.0.0.2")
    .put("port", 9191)
    .put("tokens", new JsonObject().put("tok-1", "acme"))
    .put("maxBodyBytes", 4096)
    .put("maxInFlightTurns", 17)
    .put("retryAfterSeconds", 3)
    .put("headerTimeoutMs", 2500)
    .put("idleTimeoutMs", 45000)
    .put("maxConnections", 99);
  private static final Set<String> HTTP_NOT_CONFIGURED = Set.of("servers");

  private static String property(Method setter) {
    String n = setter.getName().substring(3);
    return Character.toLowerCase(n.charAt(0)) + n.substring(1);
  }

  /** @return the properties with a public fluent setter */
  private static Set<String> setters(Class<?> type) {
    Set<String> out = new TreeSet<>();
    for (Method m : type.getMethods()) {
      if (m.getName().startsWith("set") && m.getParameterCount() == 1 && !Modifier.isStatic(m.getModifiers())
        && m.getReturnType() == type) {
        out.add(property(m));
      }
    }
    return out;
  }

  /** Compares as JSON does: {@code 5} equals {@code 5L}. */
  private static void assertSame(Object expected, Object actual, String message) {
    assertEquals(new JsonObject().put("v", expected), new JsonObject().put("v", actual), message);
  }

  private static void put(JsonObject root, String path, Object value) {
    String[] parts = path.split("\\.");
    JsonObject at = root;
    for (int i = 0; i < parts.length - 1; i++) {
      if (at.getJsonObject(parts[i]) == null) {
        at.put(parts[i], new JsonObject());
      }
      at = at.getJsonObject(parts[i]);
    }
    at.put(parts[parts.length - 1], value);
  }

  @Test
  void everySetterOfTheOptionsHasAJsonField() {
    // so that comparing toJson() below covers every setting
    Set<String> modelJson = new ModelOptions().setBaseUrl("http://x").setModel("m").toJson().fieldNames();
    for (String p : setters(ModelOptions.class)) {
      assertTrue(modelJson.contains(p) || p.equals("apiKey"), "ModelOptions.set" + p + " has no field in toJson()");
    }
    Set<String> convJson = new ConversationOptions().setSystem("s").setToolTimeoutMs(1L).toJson().fieldNames();
    for (String p : setters(ConversationOptions.class)) {
      assertTrue(convJson.contains(p), "ConversationOptions.set" + p + " has no field in toJson()");
    }
    Set<String> httpJson = new HttpApiOptions().toJson().fieldNames();
    for (String p : setters(HttpApiOptions.class)) {
      assertTrue(httpJson.contains(p), "HttpApiOptions.set" + p + " has no field in toJson()");
    }
  }

  @Test
  void everyModelOptionsFieldIsReadFromTheModelObject() {
    JsonObject defaults = new ModelOptions().toJson();
    Set<String> fields = new TreeSet<>(new ModelOptions().setBaseUrl("http://x").setModel("m").toJson().fieldNames());
    fields.add("apiKey");
    for (String f : fields) {
      assertTrue(MODEL.containsKey(f), "ModelOptions has the field '" + f + "': give it a non-default value in MODEL"
        + " and read it in AgentConfig");
      assertNotEquals(new JsonObject().put("v", defaults.getValue(f)), new JsonObject().put("v", MODEL.getValue(f)), f + ": the test value must differ from the default");
    }
    assertEquals(fields, new TreeSet<>(MODEL.fieldNames()), "MODEL holds a field ModelOptions does not have");

    ModelOptions read = AgentConfig.fromJson(new JsonObject().put("model", MODEL.copy()), Map.of()).conversation().getModel();
    JsonObject actual = read.toJson().put("apiKey", read.getApiKey());
    for (String f : fields) {
      assertSame(MODEL.getValue(f), actual.getValue(f), "model." + f + " in agent.json is not read");
    }
    // and the options' own JSON constructor reads the same
    assertEquals(new ModelOptions(MODEL).toJson(), read.toJson());
  }

  @Test
  void everyConversationOptionsFieldIsReadFromItsPlace() {
    JsonObject defaults = new ConversationOptions().toJson();
    Set<String> fields = new TreeSet<>(new ConversationOptions().setSystem("s").setToolTimeoutMs(1L).toJson().fieldNames());
    fields.remove("model");
    JsonObject file = new JsonObject().put("model", new JsonObject().put("apiKey", "k"));
    for (String f : fields) {
      assertTrue(CONVERSATION_PATHS.containsKey(f) && CONVERSATION.containsKey(f), "ConversationOptions has the field '"
        + f + "': say where agent.json sets it (CONVERSATION_PATHS), give it a value and read it in AgentConfig");
      assertNotEquals(new JsonObject().put("v", defaults.getValue(f)), new JsonObject().put("v", CONVERSATION.getValue(f)), f + ": the test value must differ from the default");
      put(file, CONVERSATION_PATHS.get(f), CONVERSATION.getValue(f));
    }
    JsonObject actual = AgentConfig.fromJson(file, Map.of()).conversation().toJson();
    for (String f : fields) {
      assertSame(CONVERSATION.getValue(f), actual.getValue(f), CONVERSATION_PATHS.get(f) + " in agent.json is not read");
    }
  }

  @Test
  void everyHttpApiOptionsFieldIsReadFromTheHttpObject() {
    JsonObject defaults = new HttpApiOptions().toJson();
    for (String f : defaults.fieldNames()) {
      if (HTTP_NOT_CONFIGURED.contains(f)) {
        continue;
      }
      assertTrue(HTTP.containsKey(f), "HttpApiOptions has the field '" + f + "': give it a non-default value in HTTP");
      assertNotEquals(new JsonObject().put("v", defaults.getValue(f)), new JsonObject().put("v", HTTP.getValue(f)), f + ": the test value must differ from the default");
    }
    AgentConfig config = AgentConfig.fromJson(new JsonObject().put("http", HTTP.copy()), Map.of());
    assertEquals(java.util.List.of(), config.unknownFields());
    JsonObject actual = new HttpApiOptions(config.http()).toJson();
    for (String f : HTTP.fieldNames()) {
      assertSame(HTTP.getValue(f), actual.getValue(f), "http." + f + " in agent.json is not read");
    }
  }
}
