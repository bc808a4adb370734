package io.agentbus.config;

import io.agentbus.conversation.ConversationOptions;
import io.agentbus.conversation.HistoryPolicy;
import io.agentbus.model.ModelOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code conf/agent.json}: the model, the loop, the history policy and the HTTP API.
 * {@code ${VAR}} references expand in every string value. Errors name the field.
 *
 * <pre>{@code
 * {"model": {"provider": "anthropic"|"openai", "model": "...", "baseUrl": "...", "apiKey": "...",
 *            "demo": false, "demoLatencyMs": 0,
 *            "maxRetries": 2, "maxConnections": 2500, "maxWaitQueueSize": -1, "http2": true,
 *            "http2MaxConnections": 492},
 *  "system": "...", "maxTokens": 4096, "stream": true,
 *  "loop": {"maxIterations": 10, "tokenBudget": 0, "toolTimeoutMs": 60000, "maxActiveTurns": 20000},
 *  "history": {"lastTurns": 0, "toolResultMaxChars": 0},
 *  "conversationInstances": 2, "drainTimeoutMs": 30000, "conversationIdleTimeoutMs": 0, "maxConversations": 100000,
 *  "http": {"host": "0.0.0.0", "port": 8080, "tokens": {"<token>": "<tenant>"}, "maxBodyBytes": 1048576,
 *           "maxInFlightTurns": 20000}}
 * }</pre>
 *
 * <p>Every field is optional; the limits that size concurrency ({@code http.maxInFlightTurns},
 * {@code loop.maxActiveTurns}, {@code maxConversations}, {@code model.maxConnections}) default
 * to values derived from the heap ({@link MemoryBudget}), so leave them out unless you mean
 * to override.
 */
public final class AgentConfig {

  private final ConversationOptions conversation;
  private final JsonObject http;
  private final Integer conversationInstances;
  /** Default time {@code serve} lets running turns finish after SIGTERM. */
  public static final long DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

  private final boolean demoModel;
  private final long demoLatencyMs;
  private final long drainTimeoutMs;

  private AgentConfig(ConversationOptions conversation, JsonObject http, Integer conversationInstances, boolean demoModel,
                      long demoLatencyMs, long drainTimeoutMs) {
    this.conversation = conversation;
    this.http = http;
    this.conversationInstances = conversationInstances;
    this.demoModel = demoModel;
    this.demoLatencyMs = demoLatencyMs;
    this.drainTimeoutMs = drainTimeoutMs;
  }

  /**
   * Reads the file; a missing file at the default location gives the defaults.
   *
   * @param env the process environment (API keys, {@code AGENTBUS_PORT}, {@code ${VAR}}s)
   */
  public static AgentConfig load(Path file, boolean mustExist, Map<String, String> env) {
    if (!Files.exists(file) && !mustExist) {
      return fromJson(new JsonObject(), env);
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read the agent config (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
    }
    try {
      return fromJson(new JsonObject(text), env);
    } catch (DecodeException e) {
      throw new ConfigException(file + ": not valid JSON: " + e.getMessage());
    } catch (ConfigException e) {
      throw new ConfigException(file + ": " + e.getMessage());
    }
  }

  /** Reads the parsed document; see the class comment for the shape. */
  public static AgentConfig fromJson(JsonObject raw, Map<String, String> env) {
    JsonObject json = expand(raw, EnvExpander.of(env), "");
    JsonFields top = new JsonFields(json, "agent config");
    JsonObject m = orEmpty(top.object("model"));
    JsonFields mf = new JsonFields(m, "agent config");
    ModelOptions fromEnv = ModelOptions.fromEnv(env);
    String provider = mf.string("provider");
    if (provider != null && !provider.equals(ModelOptions.ANTHROPIC) && !provider.equals(ModelOptions.OPENAI)) {
      throw new ConfigException("agent config: field 'model.provider' must be \"anthropic\" or \"openai\"");
    }
    if (provider != null && !provider.equals(fromEnv.getProvider())) {
      fromEnv = ModelOptions.fromEnv(withProvider(env, provider));
    }
    ModelOptions model = new ModelOptions(fromEnv).setProvider(provider != null ? provider : fromEnv.getProvider());
    String apiKey = mf.string("apiKey");
    if (apiKey != null && !apiKey.isBlank()) {
      model.setApiKey(apiKey);
    }
    ifSet(mf.string("model"), model::setModel);
    ifSet(mf.string("baseUrl"), model::setBaseUrl);
    ifSet(mf.nonNegativeLong("maxRetries"), v -> model.setMaxRetries(v.intValue()));
    ifSet(mf.positiveLong("maxConnections"), v -> model.setMaxConnections(v.intValue()));
    ifSet(mf.nonNegativeOrUnbounded("maxWaitQueueSize"), v -> model.setMaxWaitQueueSize(v.intValue()));
    ifSet(mf.positiveLong("requestTimeoutMs"), model::setRequestTimeoutMs);
    ifSet(mf.bool("http2"), model::setHttp2);
    ifSet(mf.positiveLong("http2MaxConnections"), v -> model.setHttp2MaxConnections(v.intValue()));
    ifSet(mf.bool("promptCaching"), model::setPromptCaching);

    ConversationOptions conv = new ConversationOptions().setModel(model);
    ifSet(top.string("system"), conv::setSystem);
    ifSet(top.positiveLong("maxTokens"), v -> conv.setMaxTokens(v.intValue()));
    ifSet(top.bool("stream"), conv::setStream);
    JsonFields loop = new JsonFields(orEmpty(top.object("loop")), "agent config: loop");
    ifSet(loop.positiveLong("maxIterations"), v -> conv.setMaxIterations(v.intValue()));
    ifSet(loop.nonNegativeLong("tokenBudget"), conv::setTokenBudget);
    ifSet(loop.positiveLong("toolTimeoutMs"), conv::setToolTimeoutMs);
    ifSet(loop.positiveLong("maxActiveTurns"), v -> conv.setMaxActiveTurns(v.intValue()));
    ifSet(top.positiveLong("maxConversations"), v -> conv.setMaxConversations(v.intValue()));
    ifSet(top.nonNegativeLong("conversationIdleTimeoutMs"), conv::setIdleTimeoutMs);
    JsonObject history = orEmpty(top.object("history"));
    JsonFields hf = new JsonFields(history, "agent config: history");
    Long lastTurns = hf.nonNegativeLong("lastTurns");
    Long toolResultMaxChars = hf.nonNegativeLong("toolResultMaxChars");
    conv.setHistory(new HistoryPolicy(lastTurns == null ? 0 : lastTurns.intValue(),
      toolResultMaxChars == null ? 0 : toolResultMaxChars.intValue()));
    Long instances = top.positiveLong("conversationInstances");

    JsonObject http = orEmpty(top.object("http")).copy();
    JsonFields hp = new JsonFields(http, "agent config: http");
    hp.string("host");
    hp.stringMap("tokens");
    hp.positiveLong("maxBodyBytes");
    hp.positiveLong("maxInFlightTurns");
    if (env.get("AGENTBUS_PORT") != null) {
      http.put("port", port(env.get("AGENTBUS_PORT"), "environment variable AGENTBUS_PORT"));
    } else if (http.getValue("port") != null) {
      http.put("port", port(http.getValue("port"), "agent config: field 'http.port'"));
    }
    boolean demo = Boolean.TRUE.equals(mf.bool("demo")) || model.getApiKey() == null;
    Long demoLatency = mf.nonNegativeLong("demoLatencyMs");
    Long drain = top.nonNegativeLong("drainTimeoutMs");
    return new AgentConfig(conv, http, instances == null ? null : instances.intValue(), demo,
      demoLatency == null ? 0 : demoLatency, drain == null ? DEFAULT_DRAIN_TIMEOUT_MS : drain);
  }

  private static Map<String, String> withProvider(Map<String, String> env, String provider) {
    Map<String, String> copy = new LinkedHashMap<>(env);
    copy.put("AGENTBUS_MODEL_PROVIDER", provider);
    return copy;
  }

  private static int port(Object value, String where) {
    try {
      int p = value instanceof Number n ? n.intValue() : Integer.parseInt(String.valueOf(value).trim());
      if (p < 0 || p > 65535) {
        throw new NumberFormatException();
      }
      return p;
    } catch (NumberFormatException e) {
      throw new ConfigException(where + " must be a port number (0-65535; 0 picks a free port)");
    }
  }

  /** Expands {@code ${VAR}} in every string of the tree; {@code where} names the field. */
  private static JsonObject expand(JsonObject json, EnvExpander env, String prefix) {
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : json) {
      String where = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      String key = e.getKey().contains("${") ? env.expand(e.getKey(), "agent config: field '" + where + "' (name)") : e.getKey();
      out.put(key, expandValue(e.getValue(), env, where));
    }
    return out;
  }

  private static Object expandValue(Object v, EnvExpander env, String where) {
    if (v instanceof String s) {
      return env.expand(s, "agent config: field '" + where + "'");
    }
    if (v instanceof JsonObject o) {
      return expand(o, env, where);
    }
    if (v instanceof JsonArray a) {
      JsonArray out = new JsonArray();
      for (int i = 0; i < a.size(); i++) {
        out.add(expandValue(a.getValue(i), env, where + "[" + i + "]"));
      }
      return out;
    }
    return v;
  }

  private static JsonObject orEmpty(JsonObject o) {
    return o == null ? new JsonObject() : o;
  }

  private static <T> void ifSet(T value, java.util.function.Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }

  /** @return latency added to every demo-model reply (to watch streaming), in ms */
  public long demoLatencyMs() {
    return demoLatencyMs;
  }

  /** @return how long {@code serve} lets running turns finish after SIGTERM */
  public long drainTimeoutMs() {
    return drainTimeoutMs;
  }

  /** @return the conversation service settings, model included */
  public ConversationOptions conversation() {
    return conversation;
  }

  /** @return the {@code http} object (HTTP API options JSON), port resolved */
  public JsonObject http() {
    return http;
  }

  /** @return the configured number of conversation instances, or {@code null} for the default */
  public Integer conversationInstances() {
    return conversationInstances;
  }

  /**
   * @return whether Agentbus runs its built-in demo model: when no API key was found (config
   *     or environment), or when {@code model.demo} is true
   */
  public boolean demoModel() {
    return demoModel;
  }
}
