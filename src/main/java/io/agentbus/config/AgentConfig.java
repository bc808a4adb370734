package io.agentbus.config;

import io.agentbus.cluster.ClusterOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.conversation.HistoryPolicy;
import io.agentbus.http.HttpApiOptions;
import io.agentbus.limits.MemoryBudget;
import io.agentbus.mcp.Tenants;
import io.agentbus.mcp.ToolApproval;
import io.agentbus.model.ModelOptions;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.agentbus.options.JsonFields;
import io.agentbus.options.OptionsJson;
import io.agentbus.store.StoreOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code conf/agent.json}: the model, the loop, the history policy, the conversation store and
 * the HTTP API.
 * {@code ${VAR}} references expand in every string value. Errors name the field.
 *
 * <pre>{@code
 * {"model": {"provider": "anthropic"|"openai", "model": "...", "baseUrl": "...", "apiKey": "...",
 *            "demo": false, "demoLatencyMs": 0, "anthropicVersion": "2023-06-01",
 *            "maxRetries": 2, "requestTimeoutMs": 600000, "connectTimeoutMs": 10000,
 *            "maxConnections": 2500, "maxWaitQueueSize": -1, "http2": true,
 *            "http2MaxConnections": 492, "promptCaching": true, "maxEventSize": 4194304},
 *  "system": "...", "maxTokens": 4096, "stream": true,
 *  "loop": {"maxIterations": 10, "tokenBudget": 0, "toolTimeoutMs": 60000, "turnTimeoutMs": 1740000,
 *           "maxActiveTurns": 20000},
 *  "history": {"lastTurns": 0, "toolResultMaxChars": 0},
 *  "conversationInstances": 2, "drainTimeoutMs": 30000, "conversationIdleTimeoutMs": 600000, "maxConversations": 100000,
 *  "conversationMemoryBytes": 1610612736, "maxHistoryBytes": 16777216,
 *  "approvals": {"default": "never"|"destructive"|"always", "timeoutMs": 300000},
 *  "store": {"type": "sqlite"|"postgres"|"memory", "path": "data/agentbus.db", "uri": "postgresql://...",
 *            "schema": null, "poolSize": 4, "connectTimeoutMs": 5000, "requestTimeoutMs": 10000,
 *            "maxPendingRequests": 1000, "synchronous": "normal"},
 *  "http": {"host": "0.0.0.0", "port": 8080, "tokens": {"<token>": "<tenant>"}, "maxBodyBytes": 1048576,
 *           "maxInFlightTurns": 20000, "retryAfterSeconds": 1, "headerTimeoutMs": 10000,
 *           "idleTimeoutMs": 60000, "maxConnections": 10000},
 *  "cluster": {"enabled": false, "name": "agentbus", "host": "127.0.0.1", "port": 5701, "publicHost": null,
 *              "members": ["127.0.0.1"], "configFile": null, "roles": ["http", "conversation", "mcp"],
 *              "nodeName": null, "failureDetectionMs": 5000},
 *  "tenants": {"<tenant>": {"secrets": {"GITHUB_TOKEN": "${ACME_GITHUB_TOKEN}"}}}}
 * }</pre>
 *
 * <p>Every value is checked against the range its setter accepts (an int field above
 * 2<sup>31</sup>-1 is an error, not a wrapped number); a wrong type is an error too. Keys
 * that nothing reads are ignored with a warning naming each (and the nearest known name).
 *
 * <p>Every field is optional; the limits that size concurrency ({@code http.maxInFlightTurns},
 * {@code loop.maxActiveTurns}, {@code maxConversations}, {@code model.maxConnections}) default
 * to values derived from the heap ({@link MemoryBudget}), so leave them out unless you mean
 * to override.
 */
public final class AgentConfig {

  private static final Logger LOG = LoggerFactory.getLogger(AgentConfig.class);
  /** How errors name this file's content ({@link #load} puts the file name in front). */
  private static final String OWNER = "agent config";

  private final ConversationOptions conversation;
  private final StoreOptions store;
  private final ClusterOptions cluster;
  private final JsonObject http;
  private final Integer conversationInstances;
  /** Default time {@code serve} lets running turns finish after SIGTERM. */
  public static final long DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

  private final boolean demoModel;
  private final long demoLatencyMs;
  private final long drainTimeoutMs;
  private final List<String> unknownFields;
  /** The {@code tenants} section: each tenant's secrets for scoped MCP connections. */
  private Tenants tenants = Tenants.none();

  private AgentConfig(ConversationOptions conversation, StoreOptions store, ClusterOptions cluster, JsonObject http,
                      Integer conversationInstances, boolean demoModel, long demoLatencyMs, long drainTimeoutMs,
                      List<String> unknownFields) {
    this.conversation = conversation;
    this.store = store;
    this.cluster = cluster;
    this.http = http;
    this.conversationInstances = conversationInstances;
    this.demoModel = demoModel;
    this.demoLatencyMs = demoLatencyMs;
    this.drainTimeoutMs = drainTimeoutMs;
    this.unknownFields = List.copyOf(unknownFields);
  }

  /**
   * Reads the file; a missing file at the default location gives the defaults.
   *
   * @param env the process environment (API keys, {@code AGENTBUS_PORT}, {@code ${VAR}}s)
   * @throws ConfigException naming the file, the field and the allowed values
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
    JsonObject json;
    try {
      json = new JsonObject(text);
    } catch (DecodeException e) {
      throw new ConfigException(file + ": not valid JSON: " + e.getMessage());
    }
    try {
      return read(json, env, file.toString());
    } catch (ConfigException e) {
      throw new ConfigException(file + ": " + e.getMessage());
    }
  }

  /**
   * Reads the parsed document; see the class comment for the shape.
   *
   * @throws ConfigException naming the field and the allowed values
   */
  public static AgentConfig fromJson(JsonObject raw, Map<String, String> env) {
    return read(raw, env, "agent config");
  }

  private static AgentConfig read(JsonObject raw, Map<String, String> env, String source) {
    try {
      return readChecked(raw, env, source);
    } catch (IllegalArgumentException e) {
      // a setter refused a value the range checks let through: still a configuration error
      throw new ConfigException(OWNER + ": " + e.getMessage(), e);
    }
  }

  private static AgentConfig readChecked(JsonObject raw, Map<String, String> env, String source) {
    JsonObject json = expand(raw, EnvExpander.of(env), "");
    JsonFields top = new JsonFields(json, OWNER);
    JsonFields model = top.object("model");
    ConversationOptions conv = new ConversationOptions().setModel(model(model, env));
    ifSet(top.string("system"), conv::setSystem);
    ifSet(top.intField("maxTokens", 1), conv::setMaxTokens);
    ifSet(top.bool("stream"), conv::setStream);
    JsonFields loop = top.object("loop");
    ifSet(loop.intField("maxIterations", 1), conv::setMaxIterations);
    ifSet(loop.longField("tokenBudget", 0), conv::setTokenBudget);
    ifSet(loop.longField("toolTimeoutMs", 1), conv::setToolTimeoutMs);
    ifSet(loop.longField("turnTimeoutMs", 1), conv::setTurnTimeoutMs);
    ifSet(loop.intField("maxActiveTurns", 1), conv::setMaxActiveTurns);
    ifSet(top.intField("maxConversations", 1), conv::setMaxConversations);
    ifSet(top.longField("conversationIdleTimeoutMs", 0), conv::setIdleTimeoutMs);
    ifSet(top.longField("conversationMemoryBytes", 1), conv::setMemoryBytes);
    ifSet(top.longField("maxHistoryBytes", 1), conv::setMaxHistoryBytes);
    JsonFields approvals = top.object("approvals");
    String approval = approvals.string("default");
    if (approval != null) {
      conv.setApproval(Optional.ofNullable(ToolApproval.find(approval)).orElseThrow(() -> approvals.error("default",
        "must be " + ToolApproval.CHOICES + " (was \"" + approval + "\")")));
    }
    ifSet(approvals.longField("timeoutMs", 1), conv::setApprovalTimeoutMs);
    StoreOptions store = store(top.object("store"), json.getJsonObject("store"));
    ClusterOptions cluster = cluster(top.object("cluster"), json.getJsonObject("cluster"));
    JsonFields history = top.object("history");
    Integer lastTurns = history.intField("lastTurns", 0);
    Integer toolResultMaxChars = history.intField("toolResultMaxChars", 0);
    conv.setHistory(new HistoryPolicy(lastTurns == null ? 0 : lastTurns, toolResultMaxChars == null ? 0 : toolResultMaxChars));
    Integer instances = top.intField("conversationInstances", 1);
    JsonObject http = http(top.object("http"), json.getJsonObject("http"), env);
    boolean demo = Boolean.TRUE.equals(model.bool("demo")) || conv.getModel().getApiKey() == null;
    Long demoLatency = model.longField("demoLatencyMs", 0);
    Long drain = top.longField("drainTimeoutMs", 0);
    Object tenants = top.raw("tenants");
    if (tenants != null && !(tenants instanceof JsonObject)) {
      throw top.error("tenants", "must be an object {tenant: {\"secrets\": {NAME: value}}}");
    }
    top.unknownFields().forEach(u -> LOG.warn("{}: {}", source, u));
    AgentConfig config = new AgentConfig(conv, store, cluster, http, instances, demo, demoLatency == null ? 0 : demoLatency,
      drain == null ? DEFAULT_DRAIN_TIMEOUT_MS : drain, top.unknownFields());
    config.tenants = Tenants.fromJson((JsonObject) tenants, OWNER);
    return config;
  }

  /** @return the {@code tenants} section: what {@code ${tenant.secret.NAME}} in mcp.json expands to, per tenant */
  public Tenants tenants() {
    return tenants;
  }

  /**
   * The model: the environment ({@link ModelOptions#fromEnv(Map)}) for the configured
   * provider, then every {@link ModelOptions} field the file sets, each checked against the
   * range of its setter.
   */
  private static ModelOptions model(JsonFields m, Map<String, String> env) {
    ModelOptions fromEnv = ModelOptions.fromEnv(env);
    String provider = m.string("provider");
    if (provider != null && !provider.equals(ModelOptions.ANTHROPIC) && !provider.equals(ModelOptions.OPENAI)) {
      throw m.error("provider", "must be \"anthropic\" or \"openai\"");
    }
    if (provider != null && !provider.equals(fromEnv.getProvider())) {
      fromEnv = ModelOptions.fromEnv(withProvider(env, provider));
    }
    ModelOptions model = new ModelOptions(fromEnv).setProvider(provider != null ? provider : fromEnv.getProvider());
    String apiKey = m.string("apiKey");
    if (apiKey != null && !apiKey.isBlank()) {
      model.setApiKey(apiKey);
    }
    ifSet(m.string("model"), model::setModel);
    String baseUrl = m.string("baseUrl");
    if (baseUrl != null && !baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
      throw m.error("baseUrl", "must start with http:// or https://");
    }
    ifSet(baseUrl, model::setBaseUrl);
    ifSet(m.string("anthropicVersion"), model::setAnthropicVersion);
    ifSet(m.intField("maxRetries", 0), model::setMaxRetries);
    ifSet(m.longField("requestTimeoutMs", 1), model::setRequestTimeoutMs);
    ifSet(m.intField("connectTimeoutMs", 1), model::setConnectTimeoutMs);
    ifSet(m.intField("maxConnections", 1), model::setMaxConnections);
    Long waitQueue = m.integer("maxWaitQueueSize", -1, Integer.MAX_VALUE,
      "-1 (unbounded) or an integer from 0 to " + Integer.MAX_VALUE);
    ifSet(waitQueue, v -> model.setMaxWaitQueueSize(v.intValue()));
    ifSet(m.bool("http2"), model::setHttp2);
    ifSet(m.intField("http2MaxConnections", 1), model::setHttp2MaxConnections);
    ifSet(m.bool("promptCaching"), model::setPromptCaching);
    ifSet(m.intField("maxEventSize", 1024), model::setMaxEventSize);
    return model;
  }

  /**
   * The {@code http} object, checked field by field as {@link HttpApiOptions} reads it, with
   * the port resolved ({@code AGENTBUS_PORT} wins).
   */
  private static JsonObject http(JsonFields hp, JsonObject given, Map<String, String> env) {
    JsonObject http = given == null ? new JsonObject() : given.copy();
    String host = hp.string("host");
    if (host != null && host.isBlank()) {
      throw hp.error("host", "must not be empty");
    }
    Map<String, String> tokens = hp.stringMap("tokens", true);
    if (tokens != null && tokens.entrySet().stream().anyMatch(e -> e.getKey().isBlank() || e.getValue().isBlank())) {
      throw hp.error("tokens", "must not hold an empty token or tenant name");
    }
    hp.longField("maxBodyBytes", 1);
    hp.intField("maxInFlightTurns", 1);
    hp.intField("retryAfterSeconds", 1);
    hp.longField("headerTimeoutMs", 1);
    hp.longField("idleTimeoutMs", 1);
    hp.intField("maxConnections", 1);
    Object port = hp.raw("port");
    if (port != null) {
      http.put("port", port(port, OWNER + ": field '" + hp.where("port") + "'"));
    }
    if (env.get("AGENTBUS_PORT") != null) {
      http.put("port", port(env.get("AGENTBUS_PORT"), "environment variable AGENTBUS_PORT"));
    }
    try {
      new HttpApiOptions(http);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(OWNER + ": http: " + e.getMessage(), e);
    }
    return http;
  }

  /** The {@code cluster} object, checked field by field as {@link ClusterOptions} reads it. */
  private static ClusterOptions cluster(JsonFields cl, JsonObject given) {
    cl.bool("enabled");
    cl.string("name");
    cl.string("host");
    cl.intField("port", 1);
    cl.string("publicHost");
    cl.stringList("members");
    cl.string("configFile");
    cl.stringList("roles");
    cl.string("nodeName");
    cl.longField("failureDetectionMs", 1_000);
    try {
      return new ClusterOptions(given == null ? new JsonObject() : given);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(OWNER + ": cluster: " + e.getMessage(), e);
    }
  }

  /** The {@code store} object, checked field by field as {@link StoreOptions} reads it. */
  private static StoreOptions store(JsonFields st, JsonObject given) {
    st.string("type");
    st.string("path");
    st.string("uri");
    st.string("schema");
    st.intField("poolSize", 1);
    st.longField("connectTimeoutMs", 1);
    st.longField("requestTimeoutMs", 1);
    st.intField("maxPendingRequests", 1);
    st.string("synchronous");
    try {
      StoreOptions store = new StoreOptions(given == null ? new JsonObject() : given);
      if (store.getType() == StoreOptions.Type.POSTGRES && store.getUri() == null) {
        throw st.error("uri", "is required with \"type\": \"postgres\" (postgresql://user@host:5432/database)");
      }
      return store;
    } catch (IllegalArgumentException e) {
      throw new ConfigException(OWNER + ": store: " + e.getMessage(), e);
    }
  }

  private static Map<String, String> withProvider(Map<String, String> env, String provider) {
    Map<String, String> copy = new LinkedHashMap<>(env);
    copy.put("AGENTBUS_MODEL_PROVIDER", provider);
    return copy;
  }

  /** A port: a JSON integer, or a string of digits (from {@code ${VAR}} or {@code AGENTBUS_PORT}). */
  private static int port(Object value, String where) {
    Long p = value instanceof String s && s.trim().matches("[0-9]{1,5}") ? Long.valueOf(s.trim()) : OptionsJson.exactLong(value);
    if (p == null || p < 0 || p > 65535) {
      throw new ConfigException(where + " must be a port number (0-65535; 0 picks a free port)"
        + (value instanceof String ? "" : " (was " + OptionsJson.shown(value) + ")"));
    }
    return p.intValue();
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

  /**
   * @return one line per key of the document that Agentbus does not read (it was ignored and
   *     logged as a warning), e.g. {@code unknown field 'model.maxConection' is ignored (did
   *     you mean 'model.maxConnections'?)}
   */
  /** @return the {@code cluster} settings ({@code serve --cluster} turns them on) */
  public ClusterOptions cluster() {
    return new ClusterOptions(cluster);
  }

  public List<String> unknownFields() {
    return unknownFields;
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

  /** @return the conversation store ({@code sqlite} at {@value StoreOptions#DEFAULT_PATH} by default) */
  public StoreOptions store() {
    return store;
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
