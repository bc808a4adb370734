package io.agentbus.store;

import io.agentbus.store.impl.PgUri;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Settings of a {@link ConversationStore}. A plain data object: JSON constructor with
 * defaults, {@link #toJson()}, fluent validating setters.
 *
 * <pre>{@code
 * {"type": "sqlite", "path": "data/agentbus.db"}                       // the default
 * {"type": "postgres", "uri": "postgresql://agent:${PGPASSWORD}@db:5432/agentbus", "poolSize": 8}
 * {"type": "memory"}                                                   // tests, benchmarks
 * }</pre>
 *
 * {@link #toJson()} returns the URI as given (password included) so that the options round-trip;
 * {@link #toString()} and every error built from the URI leave the password out.
 */
public class StoreOptions {

  /** Which implementation backs the store. */
  public enum Type {
    /** A map in this JVM: nothing survives a restart. For tests and benchmarks. */
    MEMORY,
    /** One SQLite file (WAL mode), written by one dedicated thread. The default. */
    SQLITE,
    /** A PostgreSQL server through the reactive vertx-pg-client pool. For production, clusters. */
    POSTGRES;

    /** @return the name used in JSON ({@code memory}, {@code sqlite}, {@code postgres}) */
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** How hard SQLite syncs a commit to disk. */
  public enum Synchronous {
    /** Every commit is on disk when it returns: survives a power loss, at one disk sync per commit. */
    FULL,
    /**
     * A commit survives the process being killed (the write-ahead log is in the operating
     * system's hands when it returns); a power loss or an OS crash may roll back the last ones,
     * never corrupt the file. SQLite's recommended setting in WAL mode, and the default.
     */
    NORMAL
  }

  public static final Type DEFAULT_TYPE = Type.SQLITE;
  public static final String DEFAULT_PATH = "data/agentbus.db";
  public static final int DEFAULT_POOL_SIZE = 4;
  public static final long DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
  public static final long DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
  public static final int DEFAULT_MAX_PENDING_REQUESTS = 1_000;
  public static final Synchronous DEFAULT_SYNCHRONOUS = Synchronous.NORMAL;

  private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private Type type = DEFAULT_TYPE;
  private String path = DEFAULT_PATH;
  private String uri;
  private String schema;
  private int poolSize = DEFAULT_POOL_SIZE;
  private long connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  private long requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  private int maxPendingRequests = DEFAULT_MAX_PENDING_REQUESTS;
  private Synchronous synchronous = DEFAULT_SYNCHRONOUS;

  public StoreOptions() {
  }

  public StoreOptions(StoreOptions other) {
    this(other.toJson());
  }

  /**
   * Reads {@code {type?, path?, uri?, schema?, poolSize?, connectTimeoutMs?, requestTimeoutMs?,
   * maxPendingRequests?, synchronous?}}; an absent field keeps its default, a wrong one throws
   * {@link IllegalArgumentException} naming the field.
   */
  public StoreOptions(JsonObject json) {
    String t = string(json, "type");
    if (t != null) {
      setType(parseEnum(Type.class, "type", t));
    }
    String p = string(json, "path");
    if (p != null) {
      setPath(p);
    }
    String u = string(json, "uri");
    if (u != null) {
      setUri(u);
    }
    String s = string(json, "schema");
    if (s != null) {
      setSchema(s);
    }
    setPoolSize((int) integer(json, "poolSize", 1, 1_000, DEFAULT_POOL_SIZE));
    setConnectTimeoutMs(integer(json, "connectTimeoutMs", 1, Long.MAX_VALUE, DEFAULT_CONNECT_TIMEOUT_MS));
    setRequestTimeoutMs(integer(json, "requestTimeoutMs", 1, Long.MAX_VALUE, DEFAULT_REQUEST_TIMEOUT_MS));
    setMaxPendingRequests((int) integer(json, "maxPendingRequests", 1, Integer.MAX_VALUE, DEFAULT_MAX_PENDING_REQUESTS));
    String sync = string(json, "synchronous");
    if (sync != null) {
      setSynchronous(parseEnum(Synchronous.class, "synchronous", sync));
    }
  }

  /** @return the JSON form read by {@link #StoreOptions(JsonObject)} (the URI as given, password included) */
  public JsonObject toJson() {
    JsonObject json = new JsonObject()
      .put("type", type.jsonName())
      .put("path", path)
      .put("poolSize", poolSize)
      .put("connectTimeoutMs", connectTimeoutMs)
      .put("requestTimeoutMs", requestTimeoutMs)
      .put("maxPendingRequests", maxPendingRequests)
      .put("synchronous", synchronous.name().toLowerCase(Locale.ROOT));
    if (uri != null) {
      json.put("uri", uri);
    }
    if (schema != null) {
      json.put("schema", schema);
    }
    return json;
  }

  /** @return which implementation backs the store */
  public Type getType() {
    return type;
  }

  /** Sets which implementation backs the store. */
  public StoreOptions setType(Type type) {
    this.type = Objects.requireNonNull(type, "'type' cannot be null");
    return this;
  }

  /** @return the SQLite file (relative to the working directory unless absolute) */
  public String getPath() {
    return path;
  }

  /** Sets the SQLite file; it and its parent directories are created on first start. */
  public StoreOptions setPath(String path) {
    Objects.requireNonNull(path, "'path' cannot be null");
    if (path.isBlank()) {
      throw new IllegalArgumentException("path must not be blank");
    }
    this.path = path;
    return this;
  }

  /** @return the PostgreSQL connection URI, or {@code null} */
  public String getUri() {
    return uri;
  }

  /**
   * Sets the PostgreSQL connection URI, {@code postgresql://user[:password]@host[:port]/database[?params]}
   * (special characters in the password percent-encoded). Required for {@link Type#POSTGRES}.
   */
  public StoreOptions setUri(String uri) {
    Objects.requireNonNull(uri, "'uri' cannot be null");
    if (!uri.startsWith("postgresql://") && !uri.startsWith("postgres://")) {
      // the value itself is not echoed: it may hold a password
      throw new IllegalArgumentException("uri must start with postgresql:// or postgres://");
    }
    this.uri = uri;
    return this;
  }

  /** @return the PostgreSQL schema the tables live in, or {@code null} for the server's search_path */
  public String getSchema() {
    return schema;
  }

  /**
   * Sets the PostgreSQL schema the tables live in (created at start when missing): lower case
   * letters, digits and underscores, at most 63.
   */
  public StoreOptions setSchema(String schema) {
    if (schema != null && !SCHEMA_NAME.matcher(schema).matches()) {
      throw new IllegalArgumentException("schema must match " + SCHEMA_NAME.pattern() + " (was '" + schema + "')");
    }
    this.schema = schema;
    return this;
  }

  /** @return the most PostgreSQL connections the store opens */
  public int getPoolSize() {
    return poolSize;
  }

  /** Sets the most PostgreSQL connections the store opens (1 to 1000). */
  public StoreOptions setPoolSize(int poolSize) {
    this.poolSize = (int) require(poolSize, 1, 1_000, "poolSize");
    return this;
  }

  /** @return how long opening a connection (or waiting for a pooled one) may take */
  public long getConnectTimeoutMs() {
    return connectTimeoutMs;
  }

  /** Sets how long opening a connection (or waiting for a pooled one) may take. */
  public StoreOptions setConnectTimeoutMs(long connectTimeoutMs) {
    this.connectTimeoutMs = require(connectTimeoutMs, 1, Integer.MAX_VALUE, "connectTimeoutMs");
    return this;
  }

  /** @return the deadline of each operation, queueing included */
  public long getRequestTimeoutMs() {
    return requestTimeoutMs;
  }

  /** Sets the deadline of each operation, queueing included (also PostgreSQL's statement_timeout). */
  public StoreOptions setRequestTimeoutMs(long requestTimeoutMs) {
    this.requestTimeoutMs = require(requestTimeoutMs, 1, Integer.MAX_VALUE, "requestTimeoutMs");
    return this;
  }

  /** @return how many operations may wait for the database before new ones fail fast */
  public int getMaxPendingRequests() {
    return maxPendingRequests;
  }

  /** Sets how many operations may wait for the database before new ones fail fast (UNAVAILABLE). */
  public StoreOptions setMaxPendingRequests(int maxPendingRequests) {
    this.maxPendingRequests = (int) require(maxPendingRequests, 1, Integer.MAX_VALUE, "maxPendingRequests");
    return this;
  }

  /** @return how hard SQLite syncs each commit */
  public Synchronous getSynchronous() {
    return synchronous;
  }

  /** Sets how hard SQLite syncs each commit ({@code full}: power-loss safe; {@code normal}: crash safe). */
  public StoreOptions setSynchronous(Synchronous synchronous) {
    this.synchronous = Objects.requireNonNull(synchronous, "'synchronous' cannot be null");
    return this;
  }

  /** @return the options as JSON with the URI's credentials and query left out */
  @Override
  public String toString() {
    JsonObject json = toJson();
    if (uri != null) {
      json.put("uri", PgUri.redact(uri));
    }
    return json.encode();
  }

  private static long require(long value, long min, long max, String field) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(field + " must be " + range(min, max) + " (was " + value + ")");
    }
    return value;
  }

  private static String range(long min, long max) {
    return max == Long.MAX_VALUE ? ">= " + min : "from " + min + " to " + max;
  }

  private static <E extends Enum<E>> E parseEnum(Class<E> type, String field, String value) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(value)) {
        return e;
      }
    }
    StringBuilder allowed = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      allowed.append(allowed.length() == 0 ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT));
    }
    throw new IllegalArgumentException("field '" + field + "' must be one of " + allowed + " (was '" + value + "')");
  }

  private static String string(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (v == null || v instanceof String) {
      return (String) v;
    }
    // the value is not echoed: a misplaced string may be a secret
    throw new IllegalArgumentException("field '" + field + "' must be a string");
  }

  private static long integer(JsonObject json, String field, long min, long max, long fallback) {
    Object v = json.getValue(field);
    if (v == null) {
      return fallback;
    }
    Long n = null;
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      n = ((Number) v).longValue();
    } else if (v instanceof Number num) {
      try {
        n = new BigDecimal(num.toString()).longValueExact();
      } catch (NumberFormatException | ArithmeticException e) {
        n = null;
      }
    }
    if (n == null || n < min || n > max) {
      String shown = v instanceof Number || v instanceof Boolean ? String.valueOf(v) : "a " + v.getClass().getSimpleName();
      throw new IllegalArgumentException("field '" + field + "' must be an integer " + range(min, max) + " (was " + shown + ")");
    }
    return n;
  }
}
