package io.agentbus.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.Shareable;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one Vert.x instance, in one Prometheus registry ({@link #get(Vertx)}). Every
 * recording method is one cheap, thread-safe call, so instrumented classes need one line.
 *
 * <p>Meters (Prometheus names): {@code agentbus_tool_calls_seconds{server,tool,outcome}},
 * {@code agentbus_model_calls_seconds{provider,outcome,status}},
 * {@code agentbus_model_tokens_total{provider,type}}, {@code agentbus_turns_seconds{status}},
 * {@code agentbus_turns_running}, {@code agentbus_conversations_active},
 * {@code agentbus_mcp_server_restarts_total{server}},
 * {@code agentbus_mcp_scoped_connections_total{server,event}},
 * {@code agentbus_http_rejected_total{reason}}, {@code agentbus_http_turns_in_flight},
 * {@code agentbus_tool_approvals_total{outcome}}, {@code agentbus_tool_approvals_waiting}, plus
 * JVM memory, threads, CPU and uptime.
 */
public final class AgentbusMetrics implements Shareable {

  /** Content type of {@link #scrape()} (Prometheus text format 0.0.4). */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private static final String SHARED_KEY = "agentbus.metrics";
  private static final Duration[] BUCKETS = {
    Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
    Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
    Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
    Duration.ofSeconds(60), Duration.ofSeconds(120)};
  /** Stop reasons kept as label values; anything else (a model's invention) is "other". */
  private static final Set<String> STOP_REASONS = Set.of("end_turn", "tool_use", "max_tokens", "stop_sequence",
    "pause_turn", "refusal", "model_context_window_exceeded");

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Meter.MeterProvider<Timer> toolCalls;
  private final Meter.MeterProvider<Timer> modelCalls;
  private final Meter.MeterProvider<Counter> tokens;
  private final Meter.MeterProvider<Timer> turns;
  private final Meter.MeterProvider<Counter> restarts;
  private final Meter.MeterProvider<Counter> rejected;
  private final Meter.MeterProvider<Counter> scopedConnections;
  private final AtomicLong runningTurns = new AtomicLong();
  private final AtomicLong activeConversations = new AtomicLong();
  private final AtomicLong httpInFlight = new AtomicLong();
  private final Meter.MeterProvider<Counter> approvals;
  private final AtomicLong approvalsWaiting = new AtomicLong();

  private final String node;

  private AgentbusMetrics(String node) {
    this.node = node;
    if (node != null) {
      registry.config().commonTags("node", node);
    }
    toolCalls = Timer.builder("agentbus.tool.calls").description("MCP tool calls by server, tool and outcome")
      .serviceLevelObjectives(BUCKETS).withRegistry(registry);
    modelCalls = Timer.builder("agentbus.model.calls").description("Model API calls by provider and stop reason or error")
      .serviceLevelObjectives(BUCKETS).withRegistry(registry);
    tokens = Counter.builder("agentbus.model.tokens").description("Tokens reported by the model API")
      .withRegistry(registry);
    turns = Timer.builder("agentbus.turns").description("Finished turns by final status")
      .serviceLevelObjectives(BUCKETS).withRegistry(registry);
    restarts = Counter.builder("agentbus.mcp.server.restarts").description("MCP server restarts")
      .withRegistry(registry);
    rejected = Counter.builder("agentbus.http.rejected").description("HTTP requests answered with an error, by reason")
      .withRegistry(registry);
    scopedConnections = Counter.builder("agentbus.mcp.scoped.connections")
      .description("Per-tenant or per-conversation MCP connections opened, failed and closed, by server and event")
      .withRegistry(registry);
    registry.gauge("agentbus.turns.running", runningTurns);
    registry.gauge("agentbus.conversations.active", activeConversations);
    registry.gauge("agentbus.http.turns.in.flight", httpInFlight);
    approvals = Counter.builder("agentbus.tool.approvals").description("Tool calls that waited for approval, by outcome")
      .withRegistry(registry);
    registry.gauge("agentbus.tool.approvals.waiting", approvalsWaiting);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /** @return the metrics shared by everything deployed on this Vert.x instance */
  public static AgentbusMetrics get(Vertx vertx) {
    Objects.requireNonNull(vertx, "'vertx' cannot be null");
    return vertx.sharedData().<String, AgentbusMetrics>getLocalMap(SHARED_KEY)
      .computeIfAbsent(SHARED_KEY, k -> new AgentbusMetrics(null));
  }

  /**
   * The metrics of a cluster node: every meter carries a {@code node} label. Call it before
   * anything else asks for the metrics of this Vert.x instance.
   *
   * @throws IllegalStateException when they exist already with another label (or none)
   */
  public static AgentbusMetrics forNode(Vertx vertx, String node) {
    Objects.requireNonNull(node, "'node' cannot be null");
    AgentbusMetrics metrics = vertx.sharedData().<String, AgentbusMetrics>getLocalMap(SHARED_KEY)
      .computeIfAbsent(SHARED_KEY, k -> new AgentbusMetrics(node));
    if (!node.equals(metrics.node)) {
      throw new IllegalStateException("the metrics of this Vert.x instance exist already, without node '" + node + "'");
    }
    return metrics;
  }

  /** @return the registry (add it to a composite registry to export elsewhere) */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** @return every meter in the Prometheus text format ({@link #CONTENT_TYPE}) */
  public String scrape() {
    return registry.scrape();
  }

  /**
   * Records one MCP tool call that was started at {@code startNanos} ({@link System#nanoTime()}).
   * Outcome: {@code ok}, {@code error} (an {@code isError} result), or why it failed
   * ({@code timeout}, {@code unavailable}, {@code rpc_error}, {@code queue_full}, ...).
   */
  public void toolCall(String server, String tool, long startNanos, AsyncResult<JsonObject> result) {
    String outcome;
    if (result.succeeded()) {
      outcome = result.result() != null && Boolean.TRUE.equals(result.result().getValue("isError")) ? "error" : "ok";
    } else {
      outcome = failureOutcome(result.cause());
    }
    toolCalls.withTags("server", server, "tool", String.valueOf(tool), "outcome", outcome)
      .record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }

  private static String failureOutcome(Throwable err) {
    if (err instanceof MetricsOutcome e) {
      return e.metricsOutcome();
    }
    if (err instanceof ReplyException re) {
      return switch (re.failureCode()) {
        case 400 -> "bad_request";
        case 403 -> "forbidden";
        case 429 -> "queue_full";
        case 502 -> "rpc_error";
        case 503 -> "unavailable";
        case 504 -> "timeout";
        default -> "failed";
      };
    }
    return "failed";
  }

  /**
   * Records one model call (attached to its future) and the tokens it reported. Status: the
   * stop reason, or the {@link MetricsOutcome} of a failure (the model exception's kind).
   *
   * @return {@code reply}, for chaining
   */
  public <R extends ModelCallResult> Future<R> modelCall(String provider, long startNanos, Future<R> reply) {
    String p = String.valueOf(provider);
    reply.onComplete(ar -> {
      long nanos = System.nanoTime() - startNanos;
      if (ar.succeeded()) {
        R resp = ar.result();
        String stop = resp.stopReason();
        modelCalls.withTags("provider", p, "outcome", "ok", "status", stop != null && STOP_REASONS.contains(stop) ? stop : "other")
          .record(nanos, TimeUnit.NANOSECONDS);
        tokens(p, resp.usage());
      } else {
        String status = ar.cause() instanceof MetricsOutcome e ? e.metricsOutcome() : "failed";
        modelCalls.withTags("provider", p, "outcome", "error", "status", status).record(nanos, TimeUnit.NANOSECONDS);
      }
    });
    return reply;
  }

  private void tokens(String provider, TokenCounts u) {
    if (u == null) {
      return;
    }
    add(provider, "input", u.inputTokens());
    add(provider, "output", u.outputTokens());
    add(provider, "cache_creation_input", u.cacheCreationInputTokens());
    add(provider, "cache_read_input", u.cacheReadInputTokens());
  }

  private void add(String provider, String type, long n) {
    if (n > 0) {
      tokens.withTags("provider", provider, "type", type).increment(n);
    }
  }

  /**
   * Counts a running turn until {@code turn} completes, then records it by its result's
   * {@code status} (or {@code error}).
   *
   * @return {@code turn}, for chaining
   */
  public Future<JsonObject> turn(Future<JsonObject> turn) {
    long start = System.nanoTime();
    runningTurns.incrementAndGet();
    turn.onComplete(ar -> {
      runningTurns.decrementAndGet();
      String status = ar.succeeded() && ar.result() != null ? ar.result().getString("status", "unknown") : "error";
      turns.withTags("status", status).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    });
    return turn;
  }

  /** A conversation was created. */
  public void conversationOpened() {
    activeConversations.incrementAndGet();
  }

  /** {@code n} conversations were deleted or dropped. */
  public void conversationsClosed(int n) {
    activeConversations.addAndGet(-n);
  }

  /** An MCP server is being restarted. */
  public void mcpRestart(String server) {
    restarts.withTags("server", server).increment();
  }

  /**
   * A scoped (per-tenant or per-conversation) connection of the server changed: {@code opened},
   * {@code failed} (it could not start), {@code exited}, or {@code closed_idle},
   * {@code closed_deleted}, {@code closed_lru}, {@code closed_stopping}. Never labelled by tenant.
   */
  public void scopedConnection(String server, String event) {
    scopedConnections.withTags("server", server, "event", event).increment();
  }

  /** The HTTP API answered a request with an error of this type. */
  public void rejected(String reason) {
    rejected.withTags("reason", reason).increment();
  }

  /** A tool call started waiting for approval. */
  public void approvalAsked() {
    approvalsWaiting.incrementAndGet();
  }

  /**
   * A tool call's wait for approval ended.
   *
   * @param outcome {@code approved}, {@code denied}, {@code timeout}, {@code shutdown}, {@code turn_ended} or {@code error}
   */
  public void approvalDecided(String outcome) {
    approvalsWaiting.decrementAndGet();
    approvals.withTags("outcome", outcome).increment();
  }

  /** The HTTP API admitted ({@code +1}) or finished ({@code -1}) a turn. */
  public void httpTurnsInFlight(int delta) {
    httpInFlight.addAndGet(delta);
  }
}
