package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Objects;

/**
 * Configuration of a {@link MockModelServer}: where it listens, which reply mode it uses, the API
 * key it expects, and the faults and latency it injects.
 *
 * <p>A plain mutable data object with a JSON constructor falling back to the defaults and {@link
 * #toJson()} (which never contains the expected key).
 */
public class MockModelOptions {

  /** Replies come from a script (a sequence of replies, see {@link #setScript(JsonObject)}). */
  public static final String MODE_SCRIPT = "script";
  /** Load-test rules: call up to K offered tools, then summarise the tool results. */
  public static final String MODE_RULES = "rules";
  /** Offline demo: pick a tool by matching words of the user's message, then summarise. */
  public static final String MODE_DEMO = "demo";

  /** Default host. */
  public static final String DEFAULT_HOST = "127.0.0.1";
  /** Default port: 0, an ephemeral port (read {@link MockModelServer#actualPort()}). */
  public static final int DEFAULT_PORT = 0;
  /** Default mode. */
  public static final String DEFAULT_MODE = MODE_DEMO;
  /** Default number of tools called in parallel in {@link #MODE_RULES}. */
  public static final int DEFAULT_MAX_PARALLEL_TOOLS = 3;
  /** Default fixed latency before answering. */
  public static final long DEFAULT_LATENCY_MS = 0;
  /** Default random extra latency (uniform in [0, jitter]). */
  public static final long DEFAULT_LATENCY_JITTER_MS = 0;
  /** Default delay between streamed events. */
  public static final long DEFAULT_STREAM_DELAY_MS = 0;
  /** Default probability of a random fault per request. */
  public static final double DEFAULT_FAULT_RATE = 0;
  /** Default random fault (see {@link MockFault#parse(String)}). */
  public static final String DEFAULT_RANDOM_FAULT = "529";
  /** Default maximum request body size (32 MB like the Messages API). */
  public static final long DEFAULT_MAX_BODY_SIZE = 32L * 1024 * 1024;
  /**
   * Default HTTP/2 {@code SETTINGS_MAX_CONCURRENT_STREAMS}: enough for thousands of calls in flight
   * on a few connections (Vert.x servers default to 100).
   */
  public static final long DEFAULT_MAX_CONCURRENT_STREAMS = 10_000;
  /** By default the server accepts h2c (upgrade or prior knowledge) besides HTTP/1.1. */
  public static final boolean DEFAULT_H2C = true;

  private String host = DEFAULT_HOST;
  private int port = DEFAULT_PORT;
  private String mode = DEFAULT_MODE;
  private String apiKey;
  private JsonObject script = new JsonObject();
  private int maxParallelTools = DEFAULT_MAX_PARALLEL_TOOLS;
  private long latencyMs = DEFAULT_LATENCY_MS;
  private long latencyJitterMs = DEFAULT_LATENCY_JITTER_MS;
  private long streamDelayMs = DEFAULT_STREAM_DELAY_MS;
  private JsonArray faults = new JsonArray();
  private double faultRate = DEFAULT_FAULT_RATE;
  private String randomFault = DEFAULT_RANDOM_FAULT;
  private long maxBodySize = DEFAULT_MAX_BODY_SIZE;
  private long maxConcurrentStreams = DEFAULT_MAX_CONCURRENT_STREAMS;
  private boolean h2c = DEFAULT_H2C;

  /** Options with the defaults. */
  public MockModelOptions() {
  }

  /**
   * Copy constructor.
   *
   * @param other the options to copy
   */
  public MockModelOptions(MockModelOptions other) {
    this(other.toJson().put("apiKey", other.apiKey));
  }

  /**
   * Reads the JSON form; absent fields keep their defaults.
   *
   * @param json the JSON form
   */
  public MockModelOptions(JsonObject json) {
    setHost(json.getString("host", DEFAULT_HOST));
    setPort(json.getInteger("port", DEFAULT_PORT));
    setMode(json.getString("mode", DEFAULT_MODE));
    apiKey = json.getString("apiKey");
    Object s = json.getValue("script");
    if (s instanceof JsonArray arr) {
      setScript(new JsonObject().put("replies", arr.copy()));
    } else if (s instanceof JsonObject obj) {
      setScript(obj.copy());
    }
    setMaxParallelTools(json.getInteger("maxParallelTools", DEFAULT_MAX_PARALLEL_TOOLS));
    setLatencyMs(json.getLong("latencyMs", DEFAULT_LATENCY_MS));
    setLatencyJitterMs(json.getLong("latencyJitterMs", DEFAULT_LATENCY_JITTER_MS));
    setStreamDelayMs(json.getLong("streamDelayMs", DEFAULT_STREAM_DELAY_MS));
    setFaults(json.getJsonArray("faults", new JsonArray()).copy());
    setFaultRate(json.getDouble("faultRate", DEFAULT_FAULT_RATE));
    setRandomFault(json.getString("randomFault", DEFAULT_RANDOM_FAULT));
    setMaxBodySize(json.getLong("maxBodySize", DEFAULT_MAX_BODY_SIZE));
    setMaxConcurrentStreams(json.getLong("maxConcurrentStreams", DEFAULT_MAX_CONCURRENT_STREAMS));
    setH2c(json.getBoolean("h2c", DEFAULT_H2C));
  }

  /**
   * @return the JSON form, without the expected API key
   */
  public JsonObject toJson() {
    return new JsonObject()
        .put("host", host)
        .put("port", port)
        .put("mode", mode)
        .put("script", script.copy())
        .put("maxParallelTools", maxParallelTools)
        .put("latencyMs", latencyMs)
        .put("latencyJitterMs", latencyJitterMs)
        .put("streamDelayMs", streamDelayMs)
        .put("faults", faults.copy())
        .put("faultRate", faultRate)
        .put("randomFault", randomFault)
        .put("maxBodySize", maxBodySize)
        .put("maxConcurrentStreams", maxConcurrentStreams)
        .put("h2c", h2c);
  }

  @Override
  public String toString() {
    return "MockModelOptions" + toJson().put("script", "...").encode();
  }

  /** @return the host to bind */
  public String getHost() {
    return host;
  }

  /**
   * @param host the host to bind
   * @return this
   */
  public MockModelOptions setHost(String host) {
    this.host = Objects.requireNonNull(host, "'host' cannot be null");
    return this;
  }

  /** @return the port, 0 for an ephemeral one */
  public int getPort() {
    return port;
  }

  /**
   * @param port the port (0 to 65535; 0 picks a free one)
   * @return this
   */
  public MockModelOptions setPort(int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be within [0, 65535]");
    }
    this.port = port;
    return this;
  }

  /** @return the reply mode */
  public String getMode() {
    return mode;
  }

  /**
   * @param mode {@link #MODE_SCRIPT}, {@link #MODE_RULES} or {@link #MODE_DEMO}
   * @return this
   */
  public MockModelOptions setMode(String mode) {
    if (!MODE_SCRIPT.equals(mode) && !MODE_RULES.equals(mode) && !MODE_DEMO.equals(mode)) {
      throw new IllegalArgumentException("mode must be script, rules or demo, was '" + mode + "'");
    }
    this.mode = mode;
    return this;
  }

  /** @return the expected API key, or null to accept any non-empty key */
  public String getApiKey() {
    return apiKey;
  }

  /**
   * @param apiKey the expected API key, or null to accept any non-empty key
   * @return this
   */
  public MockModelOptions setApiKey(String apiKey) {
    this.apiKey = apiKey;
    return this;
  }

  /** @return the script (see {@link #setScript(JsonObject)}) */
  public JsonObject getScript() {
    return script;
  }

  /**
   * Sets the script of {@link #MODE_SCRIPT}: {@code {"replies": [reply...]}} or {@code
   * {"conversations": [{"match": "text in the first user message", "replies": [...]}, ...]}} (a
   * conversation without {@code match} is the fallback). Reply {@code i} of a conversation answers
   * the request whose history holds {@code i} assistant messages, so retries and parallel
   * conversations replay consistently. A reply is {@code {"content": [blocks], "stop_reason"?,
   * "usage"?}} or the shorthand {@code {"text": "..."}}; a tool_use block may carry {@code
   * "_raw_arguments"} to send those exact (possibly invalid) OpenAI arguments.
   *
   * @param script the script
   * @return this
   */
  public MockModelOptions setScript(JsonObject script) {
    this.script = script == null ? new JsonObject() : script;
    return this;
  }

  /**
   * Shorthand for a script of one conversation.
   *
   * @param replies the replies in order
   * @return this
   */
  public MockModelOptions setScriptReplies(JsonArray replies) {
    return setScript(new JsonObject().put("replies", replies));
  }

  /** @return tools called in parallel in rules mode */
  public int getMaxParallelTools() {
    return maxParallelTools;
  }

  /**
   * @param maxParallelTools tools called in parallel in rules mode, at least 1
   * @return this
   */
  public MockModelOptions setMaxParallelTools(int maxParallelTools) {
    if (maxParallelTools < 1) {
      throw new IllegalArgumentException("maxParallelTools must be >= 1");
    }
    this.maxParallelTools = maxParallelTools;
    return this;
  }

  /** @return the fixed latency in ms */
  public long getLatencyMs() {
    return latencyMs;
  }

  /**
   * @param latencyMs fixed latency before answering, in ms, 0 or more
   * @return this
   */
  public MockModelOptions setLatencyMs(long latencyMs) {
    if (latencyMs < 0) {
      throw new IllegalArgumentException("latencyMs must be >= 0");
    }
    this.latencyMs = latencyMs;
    return this;
  }

  /** @return the random extra latency bound in ms */
  public long getLatencyJitterMs() {
    return latencyJitterMs;
  }

  /**
   * @param latencyJitterMs random extra latency, uniform in [0, jitter] ms
   * @return this
   */
  public MockModelOptions setLatencyJitterMs(long latencyJitterMs) {
    if (latencyJitterMs < 0) {
      throw new IllegalArgumentException("latencyJitterMs must be >= 0");
    }
    this.latencyJitterMs = latencyJitterMs;
    return this;
  }

  /** @return the delay between streamed events in ms */
  public long getStreamDelayMs() {
    return streamDelayMs;
  }

  /**
   * @param streamDelayMs delay between streamed events in ms, 0 or more
   * @return this
   */
  public MockModelOptions setStreamDelayMs(long streamDelayMs) {
    if (streamDelayMs < 0) {
      throw new IllegalArgumentException("streamDelayMs must be >= 0");
    }
    this.streamDelayMs = streamDelayMs;
    return this;
  }

  /** @return faults applied to the first requests, one each, in order */
  public JsonArray getFaults() {
    return faults;
  }

  /**
   * @param faults fault specs (see {@link MockFault#parse(String)}) applied to the first requests,
   *     one per request, in order
   * @return this
   */
  public MockModelOptions setFaults(JsonArray faults) {
    for (Object f : faults) {
      MockFault.parse(String.valueOf(f));
    }
    this.faults = faults;
    return this;
  }

  /** @return the probability of a random fault per request */
  public double getFaultRate() {
    return faultRate;
  }

  /**
   * @param faultRate probability in [0, 1] of applying {@link #getRandomFault()} to a request
   * @return this
   */
  public MockModelOptions setFaultRate(double faultRate) {
    if (faultRate < 0 || faultRate > 1) {
      throw new IllegalArgumentException("faultRate must be within [0, 1]");
    }
    this.faultRate = faultRate;
    return this;
  }

  /** @return the fault spec used for random faults */
  public String getRandomFault() {
    return randomFault;
  }

  /**
   * @param randomFault the fault spec used for random faults
   * @return this
   */
  public MockModelOptions setRandomFault(String randomFault) {
    MockFault.parse(randomFault);
    this.randomFault = randomFault;
    return this;
  }

  /** @return the maximum request body size in bytes */
  public long getMaxBodySize() {
    return maxBodySize;
  }

  /**
   * @param maxBodySize maximum request body size in bytes, at least 1024
   * @return this
   */
  public MockModelOptions setMaxBodySize(long maxBodySize) {
    if (maxBodySize < 1024) {
      throw new IllegalArgumentException("maxBodySize must be >= 1024");
    }
    this.maxBodySize = maxBodySize;
    return this;
  }

  /** @return the HTTP/2 streams one connection may carry at once */
  public long getMaxConcurrentStreams() {
    return maxConcurrentStreams;
  }

  /**
   * @param maxConcurrentStreams the HTTP/2 {@code SETTINGS_MAX_CONCURRENT_STREAMS} the server
   *     announces, at least 1
   * @return this
   */
  public MockModelOptions setMaxConcurrentStreams(long maxConcurrentStreams) {
    if (maxConcurrentStreams < 1 || maxConcurrentStreams > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("maxConcurrentStreams must be between 1 and 2^32-1");
    }
    this.maxConcurrentStreams = maxConcurrentStreams;
    return this;
  }

  /** @return whether the server accepts h2c besides HTTP/1.1 */
  public boolean isH2c() {
    return h2c;
  }

  /**
   * @param h2c whether the server accepts h2c (upgrade or prior knowledge); {@code false}: HTTP/1.1 only
   * @return this
   */
  public MockModelOptions setH2c(boolean h2c) {
    this.h2c = h2c;
    return this;
  }
}
