package io.agentbus.http;

import io.agentbus.limits.FileDescriptors;
import io.agentbus.limits.MemoryBudget;
import io.agentbus.options.OptionsJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the {@link HttpApiVerticle}. A plain data object: JSON constructor with
 * defaults, {@link #toJson()}, fluent validating setters.
 *
 * <p>{@code tokens} maps each bearer token to the tenant it authenticates. With no tokens the
 * API has no authentication and therefore listens on {@link #LOOPBACK} only, whatever
 * {@code host} says. {@link #toString()} never shows the tokens; {@link #toJson()} does (it
 * is the configuration form): never log it.
 */
public class HttpApiOptions {

  /** Listen on every interface (only when tokens are configured). */
  public static final String DEFAULT_HOST = "0.0.0.0";
  /** Where the API listens when no tokens are configured. */
  public static final String LOOPBACK = "127.0.0.1";
  /** Default port; 0 picks an ephemeral one. */
  public static final int DEFAULT_PORT = 8080;
  /** Largest accepted request body: 1 MiB. */
  public static final long DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
  /**
   * Turns running through this API instance at once; more are refused with 503. Derived from
   * the heap: {@link MemoryBudget#turns()} (half of the maximum heap at 32 KiB per turn, at
   * least 1000).
   */
  public static final int DEFAULT_MAX_IN_FLIGHT_TURNS = MemoryBudget.turns();
  /** The {@code Retry-After} (seconds) sent with 503 and 429 answers. */
  public static final int DEFAULT_RETRY_AFTER_SECONDS = 1;
  /**
   * A connection that has sent no complete request head this long after it opened is closed:
   * 10 s.
   */
  public static final long DEFAULT_HEADER_TIMEOUT_MS = 10_000;
  /**
   * A connection waiting on its client this long (for the next request, or for the rest of a
   * request body) is closed: 60 s. Time spent answering (a turn, an SSE stream) never counts.
   */
  public static final long DEFAULT_IDLE_TIMEOUT_MS = 60_000;
  /** The smallest derived {@link #DEFAULT_MAX_CONNECTIONS}. */
  public static final int MIN_DEFAULT_MAX_CONNECTIONS = 64;
  /** The derived {@link #DEFAULT_MAX_CONNECTIONS} where the JVM does not tell the file-descriptor limit. */
  public static final int UNKNOWN_FD_LIMIT_MAX_CONNECTIONS = 10_000;
  /**
   * Open connections to the API at once (for a {@link HttpApiVerticle.Group}: to the whole
   * group). Derived from the process's file-descriptor limit, see {@link #maxConnectionsFor}:
   * half of it (the model clients keep to a quarter, the rest is for MCP servers' pipes, files
   * and the JVM), so idle or slow clients can never take every descriptor.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = maxConnectionsFor(FileDescriptors.max());

  private String host = DEFAULT_HOST;
  private int port = DEFAULT_PORT;
  private Map<String, String> tokens = new LinkedHashMap<>();
  private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
  private int maxInFlightTurns = DEFAULT_MAX_IN_FLIGHT_TURNS;
  private int retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS;
  private long headerTimeoutMs = DEFAULT_HEADER_TIMEOUT_MS;
  private long idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  private List<String> servers = new ArrayList<>();

  public HttpApiOptions() {
  }

  public HttpApiOptions(HttpApiOptions other) {
    this(other.toJson());
  }

  /**
   * Reads {@code {host?, port?, tokens?: {token: tenant}, maxBodyBytes?, maxInFlightTurns?,
   * retryAfterSeconds?, headerTimeoutMs?, idleTimeoutMs?, maxConnections?, servers?: [names]}};
   * a field of the wrong type, or outside the range its setter accepts, throws
   * {@link IllegalArgumentException} naming it.
   */
  public HttpApiOptions(JsonObject json) {
    Objects.requireNonNull(json, "'json' cannot be null");
    // each read checks the type and the range of the setter (never a wrapped int)
    setHost(OptionsJson.string(json, "host", DEFAULT_HOST));
    setPort(OptionsJson.intField(json, "port", 0, 65535, DEFAULT_PORT));
    setMaxBodyBytes(OptionsJson.longField(json, "maxBodyBytes", 1, DEFAULT_MAX_BODY_BYTES));
    setMaxInFlightTurns(OptionsJson.intField(json, "maxInFlightTurns", 1, Integer.MAX_VALUE, DEFAULT_MAX_IN_FLIGHT_TURNS));
    setRetryAfterSeconds(OptionsJson.intField(json, "retryAfterSeconds", 1, Integer.MAX_VALUE, DEFAULT_RETRY_AFTER_SECONDS));
    setHeaderTimeoutMs(OptionsJson.longField(json, "headerTimeoutMs", 1, DEFAULT_HEADER_TIMEOUT_MS));
    setIdleTimeoutMs(OptionsJson.longField(json, "idleTimeoutMs", 1, DEFAULT_IDLE_TIMEOUT_MS));
    setMaxConnections(OptionsJson.intField(json, "maxConnections", 1, Integer.MAX_VALUE, DEFAULT_MAX_CONNECTIONS));
    Object t = json.getValue("tokens");
    if (t != null) {
      if (!(t instanceof JsonObject obj)) {
        throw new IllegalArgumentException("field 'tokens' must be an object of token: tenant");
      }
      Map<String, String> map = new LinkedHashMap<>();
      for (Map.Entry<String, Object> e : obj) {
        if (!(e.getValue() instanceof String tenant)) {
          // the key is a secret: name the field, not the token
          throw new IllegalArgumentException("field 'tokens' must map every token to a tenant name (a string)");
        }
        map.put(e.getKey(), tenant);
      }
      setTokens(map);
    }
    Object s = json.getValue("servers");
    if (s != null) {
      if (!(s instanceof JsonArray arr) || !arr.stream().allMatch(o -> o instanceof String)) {
        throw new IllegalArgumentException("field 'servers' must be an array of server names");
      }
      List<String> names = new ArrayList<>();
      arr.forEach(o -> names.add((String) o));
      setServers(names);
    }
  }

  /** @return the JSON form read by {@link #HttpApiOptions(JsonObject)} (holds the tokens: never log it) */
  public JsonObject toJson() {
    JsonObject t = new JsonObject();
    tokens.forEach(t::put);
    return new JsonObject()
      .put("host", host)
      .put("port", port)
      .put("tokens", t)
      .put("maxBodyBytes", maxBodyBytes)
      .put("maxInFlightTurns", maxInFlightTurns)
      .put("retryAfterSeconds", retryAfterSeconds)
      .put("headerTimeoutMs", headerTimeoutMs)
      .put("idleTimeoutMs", idleTimeoutMs)
      .put("maxConnections", maxConnections)
      .put("servers", new JsonArray(new ArrayList<>(servers)));
  }

  /** @return the settings without the tokens (only their count) */
  @Override
  public String toString() {
    return "HttpApiOptions{host=" + host + ", port=" + port + ", tokens=" + tokens.size()
      + ", maxBodyBytes=" + maxBodyBytes + ", maxInFlightTurns=" + maxInFlightTurns + ", headerTimeoutMs=" + headerTimeoutMs
      + ", idleTimeoutMs=" + idleTimeoutMs + ", maxConnections=" + maxConnections + ", servers=" + servers + "}";
  }

  /** @return the configured host (see {@link #effectiveHost()}) */
  public String getHost() {
    return host;
  }

  /** Sets the interface to listen on; only honoured when tokens are configured. */
  public HttpApiOptions setHost(String host) {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be empty");
    }
    this.host = host;
    return this;
  }

  /** @return where the API actually listens: {@code host} with tokens, {@link #LOOPBACK} without */
  public String effectiveHost() {
    return tokens.isEmpty() ? LOOPBACK : host;
  }

  /** @return the port (0: ephemeral) */
  public int getPort() {
    return port;
  }

  /** Sets the port, 0 to 65535 (0: ephemeral). */
  public HttpApiOptions setPort(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be between 0 and 65535");
    }
    this.port = port;
    return this;
  }

  /** @return token → tenant (a copy) */
  public Map<String, String> getTokens() {
    return new LinkedHashMap<>(tokens);
  }

  /** Sets the bearer tokens, each mapped to its tenant; empty disables authentication. */
  public HttpApiOptions setTokens(Map<String, String> tokens) {
    Objects.requireNonNull(tokens, "'tokens' cannot be null");
    for (Map.Entry<String, String> e : tokens.entrySet()) {
      if (e.getKey() == null || e.getKey().isBlank() || e.getValue() == null || e.getValue().isBlank()) {
        throw new IllegalArgumentException("tokens and tenant names must not be empty");
      }
    }
    this.tokens = new LinkedHashMap<>(tokens);
    return this;
  }

  /** Adds one bearer token for a tenant. */
  public HttpApiOptions addToken(String token, String tenant) {
    Map<String, String> copy = getTokens();
    copy.put(token, tenant);
    return setTokens(copy);
  }

  /** @return the largest accepted request body in bytes */
  public long getMaxBodyBytes() {
    return maxBodyBytes;
  }

  /** Sets the largest accepted request body (at least 1 byte); larger bodies get 413. */
  public HttpApiOptions setMaxBodyBytes(long maxBodyBytes) {
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes must be >= 1");
    }
    this.maxBodyBytes = maxBodyBytes;
    return this;
  }

  /** @return how many turns may run through this API instance at once */
  public int getMaxInFlightTurns() {
    return maxInFlightTurns;
  }

  /** Sets how many turns may run at once (at least 1); beyond it turns get 503 + Retry-After. */
  public HttpApiOptions setMaxInFlightTurns(int maxInFlightTurns) {
    if (maxInFlightTurns < 1) {
      throw new IllegalArgumentException("maxInFlightTurns must be >= 1");
    }
    this.maxInFlightTurns = maxInFlightTurns;
    return this;
  }

  /** @return the Retry-After seconds of 503 and 429 answers */
  public int getRetryAfterSeconds() {
    return retryAfterSeconds;
  }

  /** Sets the Retry-After seconds of 503 and 429 answers (at least 1). */
  public HttpApiOptions setRetryAfterSeconds(int retryAfterSeconds) {
    if (retryAfterSeconds < 1) {
      throw new IllegalArgumentException("retryAfterSeconds must be >= 1");
    }
    this.retryAfterSeconds = retryAfterSeconds;
    return this;
  }

  /** @return how long a new connection may take to send its first complete request head */
  public long getHeaderTimeoutMs() {
    return headerTimeoutMs;
  }

  /**
   * Sets how long a new connection may take to send its first complete request head (at least
   * 1 ms); then it is closed. Later requests on the connection fall under {@code idleTimeoutMs}.
   */
  public HttpApiOptions setHeaderTimeoutMs(long headerTimeoutMs) {
    if (headerTimeoutMs < 1) {
      throw new IllegalArgumentException("headerTimeoutMs must be >= 1");
    }
    this.headerTimeoutMs = headerTimeoutMs;
    return this;
  }

  /** @return how long a connection may wait on its client before it is closed */
  public long getIdleTimeoutMs() {
    return idleTimeoutMs;
  }

  /**
   * Sets how long a connection may wait on its client (at least 1 ms): for its next request
   * once a response has ended, or for the rest of a request body once the head has arrived.
   * Then it is closed. While Agentbus answers (a turn, however long, or an SSE stream) the
   * connection is not idle.
   */
  public HttpApiOptions setIdleTimeoutMs(long idleTimeoutMs) {
    if (idleTimeoutMs < 1) {
      throw new IllegalArgumentException("idleTimeoutMs must be >= 1");
    }
    this.idleTimeoutMs = idleTimeoutMs;
    return this;
  }

  /** @return how many connections may be open at once */
  public int getMaxConnections() {
    return maxConnections;
  }

  /**
   * Sets how many connections may be open at once (at least 1). A connection beyond it takes
   * the place of the one that has waited longest on its client (for a request head, or idle
   * between requests); when every connection is busy (being answered, or sending a body) it is
   * closed at once.
   */
  public HttpApiOptions setMaxConnections(int maxConnections) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1");
    }
    this.maxConnections = maxConnections;
    return this;
  }

  /**
   * The connection limit formula: half the file-descriptor limit, at least
   * {@link #MIN_DEFAULT_MAX_CONNECTIONS}.
   *
   * @param maxFileDescriptors the process's file-descriptor limit, or {@code -1} if unknown
   *     ({@link #UNKNOWN_FD_LIMIT_MAX_CONNECTIONS} then)
   * @return the default {@code maxConnections}
   */
  static int maxConnectionsFor(long maxFileDescriptors) {
    if (maxFileDescriptors <= 0) {
      return UNKNOWN_FD_LIMIT_MAX_CONNECTIONS;
    }
    return (int) Math.min(Integer.MAX_VALUE, Math.max(MIN_DEFAULT_MAX_CONNECTIONS, maxFileDescriptors / 2));
  }

  /** @return the MCP servers whose status {@code /health} reports */
  public List<String> getServers() {
    return List.copyOf(servers);
  }

  /** Sets the MCP servers whose status {@code /health} reports. */
  public HttpApiOptions setServers(List<String> servers) {
    this.servers = new ArrayList<>(Objects.requireNonNull(servers, "'servers' cannot be null"));
    return this;
  }
}
