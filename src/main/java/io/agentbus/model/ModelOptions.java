package io.agentbus.model;

import io.agentbus.limits.FileDescriptors;
import io.agentbus.limits.MemoryBudget;
import io.agentbus.options.OptionsJson;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Objects;

/**
 * Configuration of a {@link ModelClient}: which provider, where, with which key, and how the HTTP
 * client behaves (pool size, HTTP/2, timeouts, retries).
 *
 * <p>A plain mutable data object: fluent validating setters, a JSON constructor falling back to the
 * defaults, {@link #toJson()} (which never contains the API key) and {@link #fromEnv()}.
 */
public class ModelOptions {

  /** Provider name of the Anthropic Messages API: {@link Provider#ANTHROPIC}'s id (a constant, for annotations). */
  public static final String ANTHROPIC = "anthropic";
  /** Provider name of the OpenAI Chat Completions API: {@link Provider#OPENAI}'s id (a constant, for annotations). */
  public static final String OPENAI = "openai";

  /** Default provider. */
  public static final String DEFAULT_PROVIDER = ANTHROPIC;
  /** Default Anthropic base URL; requests go to {@code {baseUrl}/v1/messages}. */
  public static final String DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
  /** Default OpenAI base URL (as in the SDK); requests go to {@code {baseUrl}/chat/completions}. */
  public static final String DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
  /** Default {@code anthropic-version} header. */
  public static final String DEFAULT_ANTHROPIC_VERSION = "2023-06-01";
  /** Default number of retries after the first attempt (as in the official SDKs). */
  public static final int DEFAULT_MAX_RETRIES = 2;
  /** Default of {@link #isPromptCaching()}. */
  public static final boolean DEFAULT_PROMPT_CACHING = true;
  /** Default inactivity timeout of one attempt: 10 minutes, as in the official SDKs. */
  public static final long DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
  /** Default connect timeout. */
  public static final int DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
  /** The smallest derived {@link #DEFAULT_MAX_CONNECTIONS}. */
  public static final int MIN_DEFAULT_MAX_CONNECTIONS = 256;
  /**
   * Default maximum number of pooled HTTP/1.1 connections of one client (every conversation
   * instance has its own client, and there is one instance per core by default). Derived, see
   * {@link #maxConnectionsFor}: each client gets its share of the in-flight turn budget
   * ({@link MemoryBudget#turns()}), so no admitted turn waits for a connection, but all clients
   * together stay within a quarter of the process's file-descriptor limit (the HTTP API's own
   * connections need the rest). Connections open only on demand.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = maxConnectionsFor(MemoryBudget.turns(), FileDescriptors.max(),
      Runtime.getRuntime().availableProcessors());
  /**
   * By default the queue of requests waiting for a pooled connection is unbounded ({@code -1}):
   * a turn waits for a connection rather than failing; the admission limits bound how many wait.
   */
  public static final int DEFAULT_MAX_WAIT_QUEUE_SIZE = -1;
  /**
   * HTTP/2 is on by default: negotiated by ALPN over TLS, over cleartext h2c when the endpoint
   * accepts it (learnt once per client), HTTP/1.1 otherwise.
   */
  public static final boolean DEFAULT_HTTP2 = true;
  /**
   * Concurrent streams one HTTP/2 connection is assumed to carry when sizing the pool: the
   * server's {@code SETTINGS_MAX_CONCURRENT_STREAMS}, which Vert.x servers set to 100 and the
   * model APIs do not document.
   */
  public static final int ASSUMED_STREAMS_PER_CONNECTION = 100;
  /**
   * Default maximum number of HTTP/2 connections of one client, derived (see {@link
   * #http2MaxConnectionsFor}): the client's share of the in-flight turn budget, {@link
   * #ASSUMED_STREAMS_PER_CONNECTION} streams to a connection, so that no admitted turn waits for
   * a stream. Connections open only on demand.
   */
  public static final int DEFAULT_HTTP2_MAX_CONNECTIONS = http2MaxConnectionsFor(MemoryBudget.turns(),
      Runtime.getRuntime().availableProcessors());
  /** Default maximum size of one streamed SSE event. */
  public static final int DEFAULT_MAX_EVENT_SIZE = 4 * 1024 * 1024;

  private String provider = DEFAULT_PROVIDER;
  private String apiKey;
  private String baseUrl;
  private String model;
  private String anthropicVersion = DEFAULT_ANTHROPIC_VERSION;
  private int maxRetries = DEFAULT_MAX_RETRIES;
  private long requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  private int connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  private int maxWaitQueueSize = DEFAULT_MAX_WAIT_QUEUE_SIZE;
  private boolean http2 = DEFAULT_HTTP2;
  private int http2MaxConnections = DEFAULT_HTTP2_MAX_CONNECTIONS;
  private boolean promptCaching = DEFAULT_PROMPT_CACHING;
  private int maxEventSize = DEFAULT_MAX_EVENT_SIZE;

  /** Creates options with the defaults. */
  public ModelOptions() {
  }

  /**
   * Copy constructor.
   *
   * @param other the options to copy
   */
  public ModelOptions(ModelOptions other) {
    this.provider = other.provider;
    this.apiKey = other.apiKey;
    this.baseUrl = other.baseUrl;
    this.model = other.model;
    this.anthropicVersion = other.anthropicVersion;
    this.maxRetries = other.maxRetries;
    this.requestTimeoutMs = other.requestTimeoutMs;
    this.connectTimeoutMs = other.connectTimeoutMs;
    this.maxConnections = other.maxConnections;
    this.maxWaitQueueSize = other.maxWaitQueueSize;
    this.http2 = other.http2;
    this.http2MaxConnections = other.http2MaxConnections;
    this.promptCaching = other.promptCaching;
    this.maxEventSize = other.maxEventSize;
  }

  /**
   * Reads options from JSON; absent fields keep their defaults.
   *
   * @param json the JSON form, as produced by {@link #toJson()} plus an optional {@code apiKey}
   * @throws IllegalArgumentException naming the field when a value has the wrong type or lies
   *     outside the range its setter accepts
   */
  public ModelOptions(JsonObject json) {
    this();
    setProvider(OptionsJson.string(json, "provider", DEFAULT_PROVIDER));
    apiKey = OptionsJson.string(json, "apiKey", null);
    setBaseUrl(OptionsJson.string(json, "baseUrl", null));
    model = OptionsJson.string(json, "model", null);
    setAnthropicVersion(OptionsJson.string(json, "anthropicVersion", DEFAULT_ANTHROPIC_VERSION));
    setMaxRetries(OptionsJson.intField(json, "maxRetries", 0, Integer.MAX_VALUE, DEFAULT_MAX_RETRIES));
    setRequestTimeoutMs(OptionsJson.longField(json, "requestTimeoutMs", 1, DEFAULT_REQUEST_TIMEOUT_MS));
    setConnectTimeoutMs(OptionsJson.intField(json, "connectTimeoutMs", 1, Integer.MAX_VALUE, DEFAULT_CONNECT_TIMEOUT_MS));
    setMaxConnections(OptionsJson.intField(json, "maxConnections", 1, Integer.MAX_VALUE, DEFAULT_MAX_CONNECTIONS));
    setMaxWaitQueueSize(OptionsJson.intField(json, "maxWaitQueueSize", -1, Integer.MAX_VALUE, DEFAULT_MAX_WAIT_QUEUE_SIZE));
    setHttp2(OptionsJson.bool(json, "http2", DEFAULT_HTTP2));
    setHttp2MaxConnections(OptionsJson.intField(json, "http2MaxConnections", 1, Integer.MAX_VALUE, DEFAULT_HTTP2_MAX_CONNECTIONS));
    setPromptCaching(OptionsJson.bool(json, "promptCaching", DEFAULT_PROMPT_CACHING));
    setMaxEventSize(OptionsJson.intField(json, "maxEventSize", 1024, Integer.MAX_VALUE, DEFAULT_MAX_EVENT_SIZE));
  }

  /**
   * Options from the process environment; see {@link #fromEnv(Map)}.
   *
   * @return new options
   */
  public static ModelOptions fromEnv() {
    return fromEnv(System.getenv());
  }

  /**
   * Options from an environment map: {@code AGENTBUS_MODEL_PROVIDER} ({@code anthropic} by
   * default), {@code AGENTBUS_MODEL} (model name), then {@code ANTHROPIC_API_KEY} /
   * {@code ANTHROPIC_BASE_URL} or {@code OPENAI_API_KEY} / {@code OPENAI_BASE_URL} depending on
   * the provider.
   *
   * @param env the environment variables
   * @return new options
   */
  public static ModelOptions fromEnv(Map<String, String> env) {
    String provider = blankToNull(env.get("AGENTBUS_MODEL_PROVIDER"));
    ModelOptions o = new ModelOptions().setProvider(provider == null ? DEFAULT_PROVIDER : provider);
    o.model = blankToNull(env.get("AGENTBUS_MODEL"));
    String prefix = o.provider() == Provider.OPENAI ? "OPENAI_" : "ANTHROPIC_";
    o.apiKey = blankToNull(env.get(prefix + "API_KEY"));
    o.baseUrl = blankToNull(env.get(prefix + "BASE_URL"));
    return o;
  }

  /**
   * The pool size formula: {@code min(turns / clients, maxFileDescriptors / 4 / clients)}, at
   * least {@link #MIN_DEFAULT_MAX_CONNECTIONS}.
   *
   * @param turns the in-flight turn budget ({@link MemoryBudget#turns()})
   * @param maxFileDescriptors the process's file-descriptor limit, or {@code -1} if unknown
   * @param clients how many model clients share the budget (the default conversation instances)
   * @return the maximum pooled connections of one client
   */
  static int maxConnectionsFor(int turns, long maxFileDescriptors, int clients) {
    int n = Math.max(1, clients);
    long perClient = turns / n;
    if (maxFileDescriptors > 0) {
      perClient = Math.min(perClient, maxFileDescriptors / 4 / n);
    }
    return (int) Math.max(MIN_DEFAULT_MAX_CONNECTIONS, perClient);
  }

  /**
   * The HTTP/2 pool size formula: {@code ceil(turns / clients / ASSUMED_STREAMS_PER_CONNECTION)},
   * at least 1. Unlike {@link #maxConnectionsFor} it needs no file-descriptor cap: each
   * connection carries a hundred calls.
   *
   * @param turns the in-flight turn budget ({@link MemoryBudget#turns()})
   * @param clients how many model clients share the budget (the default conversation instances)
   * @return the maximum HTTP/2 connections of one client
   */
  static int http2MaxConnectionsFor(int turns, int clients) {
    long perClient = turns / Math.max(1, clients);
    return (int) Math.max(1, (perClient + ASSUMED_STREAMS_PER_CONNECTION - 1) / ASSUMED_STREAMS_PER_CONNECTION);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  /**
   * @return JSON form of these options, without the API key
   */
  public JsonObject toJson() {
    JsonObject json = new JsonObject()
        .put("provider", provider)
        .put("anthropicVersion", anthropicVersion)
        .put("maxRetries", maxRetries)
        .put("requestTimeoutMs", requestTimeoutMs)
        .put("connectTimeoutMs", connectTimeoutMs)
        .put("maxConnections", maxConnections)
        .put("maxWaitQueueSize", maxWaitQueueSize)
        .put("http2", http2)
        .put("http2MaxConnections", http2MaxConnections)
        .put("promptCaching", promptCaching)
        .put("maxEventSize", maxEventSize);
    if (baseUrl != null) {
      json.put("baseUrl", baseUrl);
    }
    if (model != null) {
      json.put("model", model);
    }
    return json;
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return "ModelOptions" + toJson().put("apiKey", apiKey == null ? "<unset>" : "<redacted>").encode();
  }

  /**
   * @return the provider, {@link #ANTHROPIC} or {@link #OPENAI}
   */
  public String getProvider() {
    return provider;
  }

  /** @return the provider as a {@link Provider} */
  public Provider provider() {
    return Provider.of(provider);
  }

  /**
   * @param provider {@link #ANTHROPIC} or {@link #OPENAI}
   * @return this
   */
  public ModelOptions setProvider(String provider) {
    Objects.requireNonNull(provider, "'provider' cannot be null");
    this.provider = Provider.of(provider).id();
    return this;
  }

  /**
   * @return the API key, or {@code null}
   */
  public String getApiKey() {
    return apiKey;
  }

  /**
   * @param apiKey the API key (never logged)
   * @return this
   */
  public ModelOptions setApiKey(String apiKey) {
    this.apiKey = apiKey;
    return this;
  }

  /**
   * @return the configured base URL, or {@code null} for the provider default
   */
  public String getBaseUrl() {
    return baseUrl;
  }

  /**
   * @param baseUrl base URL ({@code null} for the provider default); for OpenAI it includes
   *     {@code /v1} like the SDK's {@code OPENAI_BASE_URL}
   * @return this
   */
  public ModelOptions setBaseUrl(String baseUrl) {
    if (baseUrl != null && !baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
      throw new IllegalArgumentException("baseUrl must start with http:// or https://");
    }
    this.baseUrl = baseUrl;
    return this;
  }

  /**
   * @return the base URL in effect (the configured one or the provider default), without a
   *     trailing slash
   */
  public String effectiveBaseUrl() {
    String url = baseUrl != null ? baseUrl
        : provider() == Provider.OPENAI ? DEFAULT_OPENAI_BASE_URL : DEFAULT_ANTHROPIC_BASE_URL;
    while (url.endsWith("/")) {
      url = url.substring(0, url.length() - 1);
    }
    return url;
  }

  /**
   * @return the default model used when a request names none, or {@code null}
   */
  public String getModel() {
    return model;
  }

  /**
   * @param model the default model used when a request names none
   * @return this
   */
  public ModelOptions setModel(String model) {
    this.model = model;
    return this;
  }

  /**
   * @return the {@code anthropic-version} header value
   */
  public String getAnthropicVersion() {
    return anthropicVersion;
  }

  /**
   * @param anthropicVersion the {@code anthropic-version} header value
   * @return this
   */
  public ModelOptions setAnthropicVersion(String anthropicVersion) {
    Objects.requireNonNull(anthropicVersion, "'anthropicVersion' cannot be null");
    this.anthropicVersion = anthropicVersion;
    return this;
  }

  /**
   * @return retries after the first attempt
   */
  public int getMaxRetries() {
    return maxRetries;
  }

  /**
   * @param maxRetries retries after the first attempt, 0 or more
   * @return this
   */
  public ModelOptions setMaxRetries(int maxRetries) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must be >= 0");
    }
    this.maxRetries = maxRetries;
    return this;
  }

  /**
   * @return the inactivity timeout of one attempt in ms
   */
  public long getRequestTimeoutMs() {
    return requestTimeoutMs;
  }

  /**
   * @param requestTimeoutMs how long one attempt may go without receiving any bytes, at least 1
   * @return this
   */
  public ModelOptions setRequestTimeoutMs(long requestTimeoutMs) {
    if (requestTimeoutMs < 1) {
      throw new IllegalArgumentException("requestTimeoutMs must be >= 1");
    }
    this.requestTimeoutMs = requestTimeoutMs;
    return this;
  }

  /**
   * @return the connect timeout in ms
   */
  public int getConnectTimeoutMs() {
    return connectTimeoutMs;
  }

  /**
   * @param connectTimeoutMs the connect timeout in ms, at least 1
   * @return this
   */
  public ModelOptions setConnectTimeoutMs(int connectTimeoutMs) {
    if (connectTimeoutMs < 1) {
      throw new IllegalArgumentException("connectTimeoutMs must be >= 1");
    }
    this.connectTimeoutMs = connectTimeoutMs;
    return this;
  }

  /**
   * @return maximum pooled HTTP/1.1 connections (also where HTTP/2 falls back to HTTP/1.1)
   */
  public int getMaxConnections() {
    return maxConnections;
  }

  /**
   * @param maxConnections maximum pooled HTTP/1.1 connections, at least 1
   * @return this
   */
  public ModelOptions setMaxConnections(int maxConnections) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1");
    }
    this.maxConnections = maxConnections;
    return this;
  }

  /**
   * @return bound of the queue of requests waiting for a connection ({@code -1}: unbounded)
   */
  public int getMaxWaitQueueSize() {
    return maxWaitQueueSize;
  }

  /**
   * @param maxWaitQueueSize bound of the queue of requests waiting for a connection, {@code -1}
   *     for unbounded
   * @return this
   */
  public ModelOptions setMaxWaitQueueSize(int maxWaitQueueSize) {
    if (maxWaitQueueSize < -1) {
      throw new IllegalArgumentException("maxWaitQueueSize must be >= -1");
    }
    this.maxWaitQueueSize = maxWaitQueueSize;
    return this;
  }

  /**
   * @return whether HTTP/2 is offered: by ALPN over TLS (h2, else http/1.1), over cleartext by one
   *     h2c upgrade probe per client, then h2c with prior knowledge or HTTP/1.1 depending on the
   *     answer; {@code false}: HTTP/1.1 only
   */
  public boolean isHttp2() {
    return http2;
  }

  /**
   * @param http2 whether to offer HTTP/2 (see {@link #isHttp2()})
   * @return this
   */
  public ModelOptions setHttp2(boolean http2) {
    this.http2 = http2;
    return this;
  }

  /**
   * @return maximum HTTP/2 connections of one client (each carries as many calls as the server's
   *     {@code SETTINGS_MAX_CONCURRENT_STREAMS} allows)
   */
  public int getHttp2MaxConnections() {
    return http2MaxConnections;
  }

  /**
   * @param http2MaxConnections maximum HTTP/2 connections of one client, at least 1
   * @return this
   */
  public ModelOptions setHttp2MaxConnections(int http2MaxConnections) {
    if (http2MaxConnections < 1) {
      throw new IllegalArgumentException("http2MaxConnections must be >= 1");
    }
    this.http2MaxConnections = http2MaxConnections;
    return this;
  }

  /**
   * @return whether Anthropic requests carry prompt-cache breakpoints (last tool, last message),
   *     so the growing history of an agent loop is read from the cache (default true)
   */
  public boolean isPromptCaching() {
    return promptCaching;
  }

  /**
   * @param promptCaching whether to add Anthropic prompt-cache breakpoints
   * @return this
   */
  public ModelOptions setPromptCaching(boolean promptCaching) {
    this.promptCaching = promptCaching;
    return this;
  }

  /**
   * @return maximum size of one streamed SSE event in bytes
   */
  public int getMaxEventSize() {
    return maxEventSize;
  }

  /**
   * @param maxEventSize maximum size of one streamed SSE event in bytes, at least 1024
   * @return this
   */
  public ModelOptions setMaxEventSize(int maxEventSize) {
    if (maxEventSize < 1024) {
      throw new IllegalArgumentException("maxEventSize must be >= 1024");
    }
    this.maxEventSize = maxEventSize;
    return this;
  }
}
