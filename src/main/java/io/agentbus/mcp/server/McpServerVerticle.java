package io.agentbus.mcp.server;

import io.agentbus.bus.Actions;
import io.agentbus.cluster.ClusterNodes;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.Tenants;
import io.agentbus.mcp.transport.McpTransport;
import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns one configured MCP server: its connection, supervision (restart with backoff and
 * jitter, DOWN after repeated failures) and its event-bus address
 * {@code agentbus.mcp.<name>} (actions {@code tools/list}, {@code tools/call},
 * {@code status}). Deploy it with the server's {@link McpServerOptions#toJson()} as config.
 * Deployment completes after the first connection attempt, whether it succeeded or not; a
 * verticle made by {@link #connectingInBackground()} completes it as soon as it serves its
 * address, and connects in the background ({@link #firstAttempt()}, {@link #firstReady()} tell
 * how far it got). Either way its address answers from the start: {@code status} says
 * {@code STARTING} (with the running attempt's phase), {@code tools/list} lists no tools yet
 * and calls wait for READY within their deadline.
 *
 * <p><b>One deadline per call.</b> A {@code tools/call} may carry {@code budgetMs}, what is
 * left of its caller's deadline. The call's hard limit is {@code min(budgetMs,
 * maxTotalTimeoutMs)} from its arrival; its timeout ({@code timeoutMs}, else the server's) is
 * never longer. Waiting for the server to be READY and for a call slot spends both; the MCP
 * request then gets what is left: its timeout, restarted by every progress notification, and
 * never past the hard limit. So this layer, and the MCP request inside it, always fails before
 * a caller that sent {@code budgetMs} and waits a little longer.
 *
 * <p>A call that never reached the server (still restarting when its time ran out, no free
 * slot, down, stopping) fails with a message starting with {@link #NOT_STARTED}; any other
 * failure of a sent call (a timeout, the server exiting mid-call) leaves its outcome unknown.
 *
 * <p><b>Supervision.</b> While the server is STARTING or RESTARTING, calls wait for READY within
 * their deadline (in a list bounded by {@code maxQueuedCalls}); DOWN and STOPPED fail them at
 * once with the reason. Once a connection has stayed READY for {@link #STABLE_AFTER_MS}, the
 * consecutive-failure count goes back to 0, so a healthy server killed now and then restarts
 * after the initial backoff and is never reported DOWN for it.
 *
 * <p><b>Scope.</b> With {@code scope} {@code tenant} or {@code conversation} each caller's calls
 * run on a connection of its own ({@link ScopedCalls}, {@link ScopedConnections}), opened with
 * its tenant's values ({@link #setTenants}); this verticle's own connection then only lists the
 * tools and reports the status above, as no tenant, and serves no call.
 */
public class McpServerVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(McpServerVerticle.class);
  /** A connection that stayed READY this long resets the consecutive-failure count. */
  public static final long STABLE_AFTER_MS = 3_000;
  /**
   * Prefix of the failure message of a {@code tools/call} that was never sent to the server
   * (it did not run): not ready in time, no free call slot, queue full, down, stopping.
   */
  public static final String NOT_STARTED = "not started: ";

  /** One {@code tools/call} request and its deadlines (nanoTime). */
  private static final class Call {
    final Message<JsonObject> msg;
    final ToolCallRequest req;
    final long arrivedNanos = System.nanoTime();
    final long timeoutAtNanos;
    final long hardAtNanos;

    Call(Message<JsonObject> msg, ToolCallRequest req, long timeoutMs, long hardLimitMs) {
      this.msg = msg;
      this.req = req;
      this.timeoutAtNanos = arrivedNanos + timeoutMs * 1_000_000L;
      this.hardAtNanos = arrivedNanos + hardLimitMs * 1_000_000L;
    }

    /** @return ms left before the call must have started (its timeout, within the hard limit) */
    long startLeftMs() {
      return (Math.min(timeoutAtNanos, hardAtNanos) - System.nanoTime()) / 1_000_000L;
    }

    long hardLeftMs() {
      return (hardAtNanos - System.nanoTime()) / 1_000_000L;
    }

    long waitedMs() {
      return (System.nanoTime() - arrivedNanos) / 1_000_000L;
    }
  }

  /** What a connection attempt that has not ended yet is doing, by its client's status. */
  private static String phase(McpClient.Status status) {
    return switch (status) {
      case NEW, CONNECTING -> "connecting";
      case INITIALIZING -> "initializing";
      case READY -> "listing tools";
      case CLOSING, CLOSED -> "closing";
    };
  }

  /** The client said the call cannot be sent now (connection not READY): it never started. */
  private static final class NotReady extends RuntimeException {
    NotReady(String message) {
      super(message, null, false, false);
    }
  }

  private final Function<McpServerOptions, McpTransport> transports;
  private final long stableAfterMs;
  private final boolean awaitFirstAttempt;
  private AgentbusMetrics metrics;
  private final Promise<Void> firstAttempt = Promise.promise();
  private final Promise<Void> firstReady = Promise.promise();
  private McpServerOptions options;
  private String name;
  private ToolFilter filter;
  private RestartBackoff backoff;
  private CallGate gate;
  private McpClient client;
  /** Routes the server requests of {@link #client}'s connection to the calls' conversations. */
  private ServerRequests requests;
  private ServerState state = ServerState.STARTING;
  private String detail;
  private List<JsonObject> tools = List.of();
  private int consecutiveFailures;
  private long restarts;
  private long restartTimer = -1;
  private long stableTimer = -1;
  /** When the running connection attempt began (nanoTime), or -1 when none runs. */
  private long attemptStartNanos = -1;
  private boolean stopping;
  private MessageConsumer<JsonObject> consumer;
  private MessageConsumer<JsonObject> sync;
  /** The cluster node this verticle runs on (in its events, so catalogs know who serves what). */
  private String node;
  /** Calls waiting for READY, FIFO. */
  /** Calls waiting for READY. */
  private ParkedCalls<Call> parked;
  /** The tenants' values for a scoped server's connections. */
  private Tenants tenants = Tenants.none();
  private ScopedConnector scopedConnector;
  private Authorizations authorizations;
  /** Why the shared connection cannot start until someone authorizes it (the error's data), or {@code null}. */
  private JsonObject authorizationNeeded;
  /** A scoped server's calls and connections ({@code null} for a shared server). */
  private ScopedCalls scoped;

  /**
   * The transport the options describe; the connection counts as stable after
   * {@link #STABLE_AFTER_MS}; deployment waits for the first connection attempt.
   */
  public McpServerVerticle() {
    this(null, STABLE_AFTER_MS);
  }

  /**
   * Like {@link #McpServerVerticle()}, but deployment completes as soon as the verticle serves
   * its address: the server connects in the background, so a server that is slow or hangs
   * while starting holds up nothing but its own calls.
   */
  public static McpServerVerticle connectingInBackground() {
    return new McpServerVerticle(null, STABLE_AFTER_MS, false);
  }

  /**
   * Deployment waits for the first connection attempt.
   *
   * @param transports makes the transport of each connection attempt, on the verticle's context
   *     ({@code null}: the one the options describe); lets an embedder or a test supply its own
   * @param stableAfterMs how long a connection must stay READY to reset the failure count
   */
  public McpServerVerticle(Function<McpServerOptions, McpTransport> transports, long stableAfterMs) {
    this(transports, stableAfterMs, true);
  }

  /**
   * @param transports makes the transport of each connection attempt, on the verticle's context
   *     ({@code null}: the one the options describe); lets an embedder or a test supply its own
   * @param stableAfterMs how long a connection must stay READY to reset the failure count
   * @param awaitFirstAttempt whether deployment waits for the first connection attempt to end
   *     ({@code false}: it completes once the address is served; see {@link #firstAttempt()})
   */
  public McpServerVerticle(Function<McpServerOptions, McpTransport> transports, long stableAfterMs, boolean awaitFirstAttempt) {
    if (stableAfterMs < 1) {
      throw new IllegalArgumentException("stableAfterMs must be >= 1");
    }
    this.transports = transports;
    this.stableAfterMs = stableAfterMs;
    this.awaitFirstAttempt = awaitFirstAttempt;
  }

  /**
   * Completes once the first connection attempt has ended, whether the server became READY or
   * not (it then keeps being restarted), or the verticle stopped first; fails if the verticle
   * could not start. Callbacks run on the verticle's context.
   */
  public Future<Void> firstAttempt() {
    return firstAttempt.future();
  }

  /**
   * Completes the first time the server is READY; fails if the verticle could not start or
   * stopped before that. It may never complete: a server that never answers keeps being
   * retried. Callbacks run on the verticle's context.
   */
  public Future<Void> firstReady() {
    return firstReady.future();
  }

  /**
   * Sets the values of {@code ${tenant.secret.NAME}} for a scoped server's connections (the
   * agent config's {@code tenants}); call before deployment.
   */
  public McpServerVerticle setTenants(Tenants tenants) {
    this.tenants = java.util.Objects.requireNonNull(tenants, "'tenants' cannot be null");
    return this;
  }

  /**
   * Sets what makes the client of each scoped connection (default: the transport the key's
   * options describe, or this verticle's transport function); call before deployment.
   */
  public McpServerVerticle setScopedConnector(ScopedConnector connector) {
    this.scopedConnector = connector;
    return this;
  }

  @Override
  public Future<?> start() {
    metrics = AgentbusMetrics.get(vertx);
    try {
      SharedJsonCodec.register(vertx);
      options = new McpServerOptions(config());
      name = options.getName();
      filter = new ToolFilter(options.getAllowedTools(), options.getDisabledTools());
      backoff = new RestartBackoff(options.getRestartInitialBackoffMs(), options.getRestartMaxBackoffMs());
      gate = new CallGate(vertx, name, options.getMaxConcurrentCalls(), options.getMaxQueuedCalls());
      parked = new ParkedCalls<>(vertx, options.getMaxQueuedCalls());
      options.checkTenantPlaceholders();
      authorizations = new Authorizations(vertx, options);
      if (options.getScope() != McpServerOptions.Scope.SHARED) {
        ScopedConnector connector = scopedConnector != null || transports == null ? scopedConnector
          : (key, resolved) -> McpClient.create(vertx, resolved, transports.apply(resolved));
        scoped = new ScopedCalls(vertx, options, tenants, connector, stableAfterMs, authorizations);
        options = scoped.listingOptions(); // this verticle's own connection only lists the tools
      }
    } catch (RuntimeException e) {
      firstAttempt.tryFail(e);
      firstReady.tryFail(e);
      throw e;
    }
    node = ClusterNodes.nodeId(vertx);
    // cluster-wide: other nodes' dispatchers call this server, their catalogs ask it to repeat its state
    consumer = vertx.eventBus().consumer(Addresses.mcp(name), this::onRequest);
    sync = vertx.eventBus().consumer(Addresses.CATALOG_SYNC, m -> announce());
    return Future.all(consumer.completion(), sync.completion()).<Void>mapEmpty()
      .onFailure(err -> {
        firstAttempt.tryFail(err);
        firstReady.tryFail(err);
      })
      .compose(v -> {
        Future<Void> attempt = connect();
        return awaitFirstAttempt ? attempt : Future.succeededFuture();
      });
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    attemptStartNanos = -1;
    vertx.cancelTimer(restartTimer);
    vertx.cancelTimer(stableTimer);
    gate.failQueued(failure(FailureCodes.UNAVAILABLE, NOT_STARTED + "server '" + name + "' is stopping"));
    setState(ServerState.STOPPED, null);
    firstAttempt.tryComplete();
    firstReady.tryFail(new IllegalStateException("server '" + name + "' stopped before it was ever ready"));
    Future<Void> closed = client == null ? Future.succeededFuture() : client.close();
    return scoped == null ? closed : Future.join(closed, scoped.close());
  }

  private Future<Void> connect() {
    McpClient c = transports == null ? McpClient.create(vertx, options) : McpClient.create(vertx, options, transports.apply(options));
    client = c;
    requests = new ServerRequests(vertx, options, tenants, method -> c.notify(method, null));
    c.serverRequestHandler(requests);
    attemptStartNanos = System.nanoTime();
    c.toolsChangedHandler(list -> {
      if (client == c) {
        updateTools(list);
      }
    });
    c.closeHandler(err -> {
      if (client == c) {
        onCrash(err);
      }
    });
    return c.connect().<Void>map(init -> {
      if (client == c && !stopping) {
        attemptStartNanos = -1;
        authorizationNeeded = null;
        updateTools(c.tools());
        setState(ServerState.READY, null);
        firstReady.tryComplete();
        stableTimer = vertx.setTimer(stableAfterMs, t -> {
          stableTimer = -1;
          if (client == c && state == ServerState.READY && consecutiveFailures > 0) {
            LOG.info("[{}] stable for {} ms: consecutive failures reset", name, stableAfterMs);
            consecutiveFailures = 0;
            setState(ServerState.READY, null);
          }
        });
        admitParked();
      }
      return null;
    }).recover(err -> {
      if (client == c && !stopping) {
        attemptStartNanos = -1;
        authorizationNeeded = Authorizations.isRequired(err) && ((McpException) err).data() instanceof JsonObject needed
          ? needed : null;
        LOG.warn("[{}] failed to start: {}", name, err.getMessage());
        consecutiveFailures++;
        scheduleRestart(err.getMessage());
      }
      return Future.succeededFuture();
    }).andThen(ar -> firstAttempt.tryComplete());
  }

  /** A person authorized {@code tenant} ({@code null}: the shared identity): a connection waiting for that starts now. */
  private void authorized(String tenant) {
    if (tenant != null || scoped != null || stopping || state == ServerState.READY || authorizationNeeded == null) {
      return; // scoped connections open on their next call
    }
    LOG.info("[{}] authorized: connecting now", name);
    vertx.cancelTimer(restartTimer);
    authorizationNeeded = null;
    consecutiveFailures = 0;
    connect();
  }

  private void onCrash(Throwable err) {
    if (stopping) {
      return;
    }
    vertx.cancelTimer(stableTimer);
    stableTimer = -1;
    consecutiveFailures++;
    scheduleRestart(err.getMessage());
    // calls still waiting for a slot never reached the server: they wait for the restart
    gate.failQueued(new NotReady("server '" + name + "' exited"));
  }

  private void scheduleRestart(String reason) {
    long delay;
    if (consecutiveFailures >= options.getDownAfterFailures()) {
      delay = backoff.delayMs(Integer.MAX_VALUE);
      setState(ServerState.DOWN, reason);
    } else {
      delay = backoff.delayMs(consecutiveFailures);
      setState(ServerState.RESTARTING, reason);
    }
    LOG.info("[{}] restarting in {} ms (failure {} in a row)", name, delay, consecutiveFailures);
    restartTimer = vertx.setTimer(delay, t -> {
      if (!stopping) {
        restarts++;
        metrics.mcpRestart(name);
        connect();
      }
    });
  }

  private void updateTools(List<JsonObject> all) {
    tools = all.stream().filter(t -> filter.allows(t.getString("name"))).toList();
    publishTools();
  }

  private void publishTools() {
    JsonObject event = withApproval(new JsonObject().put("server", name).put("node", node).put("tools", new JsonArray(tools)));
    vertx.eventBus().publish(Addresses.mcpToolsChanged(name), event);
    vertx.eventBus().publish(Addresses.MCP_TOOLS_CHANGED_ALL, event);
  }

  /** Adds the configured approval policies ({@link McpServerOptions#approvalJson()}), which the catalog applies. */
  private JsonObject withApproval(JsonObject body) {
    JsonObject approval = options.approvalJson();
    return approval == null ? body : body.put("approval", approval);
  }

  /** Repeats this server's status (and tools, when READY) for a catalog that just started. */
  private void announce() {
    if (stopping) {
      return;
    }
    JsonObject status = status();
    vertx.eventBus().publish(Addresses.MCP_STATUS_ALL, status);
    if (state == ServerState.READY) {
      publishTools();
    }
  }

  private void setState(ServerState newState, String why) {
    state = newState;
    detail = why;
    if (newState == ServerState.DOWN || newState == ServerState.STOPPED) {
      failParked();
    }
    JsonObject status = status();
    vertx.eventBus().publish(Addresses.mcpStatus(name), status);
    vertx.eventBus().publish(Addresses.MCP_STATUS_ALL, status);
  }

  private JsonObject status() {
    JsonObject s = new JsonObject()
      .put("server", name)
      .put("node", node)
      .put("status", state.name())
      .put("restarts", restarts)
      .put("consecutiveFailures", consecutiveFailures)
      .put("toolCount", tools.size())
      .put("runningCalls", gate.running())
      .put("queuedCalls", gate.queued())
      .put("waitingCalls", parked.size());
    if (detail != null) {
      s.put("detail", detail);
    }
    if (client != null && state != ServerState.READY && attemptStartNanos >= 0) {
      s.put("attempt", new JsonObject().put("phase", phase(client.status()))
        .put("elapsedMs", (System.nanoTime() - attemptStartNanos) / 1_000_000L)
        .put("connectTimeoutMs", options.getConnectTimeoutMs()));
    }
    if (scoped != null) {
      s.put("scoped", scoped.status());
    }
    if (client != null && state == ServerState.READY) {
      s.put("protocolVersion", client.protocolVersion());
      s.put("serverInfo", client.initializeResult().getValue("serverInfo"));
      s.put("connection", client.describe());
    }
    return s;
  }

  private void onRequest(Message<JsonObject> msg) {
    String action = msg.headers().get(Actions.HEADER);
    if (action == null) {
      msg.fail(FailureCodes.BAD_REQUEST, "missing 'action' header (tools/list, tools/call or status)");
      return;
    }
    switch (action) {
      case Actions.TOOLS_LIST -> msg.reply(withApproval(new JsonObject().put("server", name).put("node", node)
        .put("status", state.name()).put("tools", new JsonArray(tools))));
      case Actions.STATUS -> msg.reply(status());
      case Actions.TOOLS_CALL -> call(msg);
      case Actions.OAUTH_AUTHORIZE -> authorizations.authorize(msg);
      case Actions.OAUTH_CALLBACK -> authorizations.callback(msg, this::authorized);
      default -> msg.fail(FailureCodes.NOT_FOUND, "unknown action '" + action + "' for " + Addresses.mcp(name)
        + " (tools/list, tools/call or status)");
    }
  }

  private void call(Message<JsonObject> msg) {
    ToolCallRequest req;
    try {
      req = ToolCallRequest.parse(msg.body());
    } catch (IllegalArgumentException e) {
      msg.fail(FailureCodes.BAD_REQUEST, e.getMessage());
      return;
    }
    if (!filter.allows(req.name())) {
      msg.fail(FailureCodes.FORBIDDEN, "tool '" + req.name() + "' of server '" + name + "' is disabled by configuration");
      return;
    }
    long hardLimit = options.getMaxTotalTimeoutMs();
    if (req.budgetMs() != null) {
      hardLimit = Math.min(hardLimit, req.budgetMs());
    }
    long timeout = Math.min(req.timeoutMs() != null ? req.timeoutMs() : options.getTimeoutMs(), hardLimit);
    if (scoped != null) {
      scoped.call(msg, req, timeout, hardLimit);
      return;
    }
    if (authorizationNeeded != null && state != ServerState.READY) {
      fail(new Call(msg, req, timeout, hardLimit), authorizations.required(req, authorizationNeeded));
      return;
    }
    admit(new Call(msg, req, timeout, hardLimit));
  }

  /** Starts the call when the server is READY, parks it while it starts, fails it otherwise. */
  private void admit(Call call) {
    if (call.startLeftMs() < 1) {
      fail(call, failure(FailureCodes.TIMEOUT, NOT_STARTED + "server '" + name + "': the call's time ran out after "
        + call.waitedMs() + " ms before it could start" + (state == ServerState.READY ? "" : " (server " + describeState() + ")")));
      return;
    }
    switch (state) {
      case READY -> {
        if (client != null && client.status() == McpClient.Status.READY) {
          start(call);
        } else {
          park(call); // its connection just ended: the crash is being reported, a restart follows
        }
      }
      case STARTING, RESTARTING -> park(call);
      default -> fail(call, failure(FailureCodes.UNAVAILABLE, NOT_STARTED + "server '" + name + "' is " + describeState()));
    }
  }

  private String describeState() {
    return state.name().toLowerCase() + (detail == null ? "" : ": " + detail);
  }

  private void park(Call call) {
    boolean parkedNow = parked.park(call, call.startLeftMs(), late -> fail(late, failure(FailureCodes.TIMEOUT, NOT_STARTED
      + "server '" + name + "' was still not ready after " + late.waitedMs() + " ms (" + describeState() + ")")));
    if (!parkedNow) {
      fail(call, failure(FailureCodes.QUEUE_FULL, NOT_STARTED + "server '" + name + "' is " + state.name().toLowerCase()
        + " and " + parked.size() + " calls already wait for it (maxQueuedCalls); try again later"));
    }
  }

  /** READY: the parked calls go to the gate, in their order. */
  private void admitParked() {
    parked.drain(this::admit);
  }

  private void failParked() {
    parked.drain(call -> fail(call, failure(FailureCodes.UNAVAILABLE, NOT_STARTED + "server '" + name + "' is "
      + describeState())));
  }

  private void start(Call call) {
    McpClient c = client;
    ServerRequests r = requests;
    ToolCallRequest req = call.req;
    long startNanos = System.nanoTime();
    ProgressForwarder[] forwarder = new ProgressForwarder[1];
    gate.submit(ignoredLeftMs -> {
      if (client != c || c.status() != McpClient.Status.READY) {
        return Future.failedFuture(new NotReady("server '" + name + "' is not ready"));
      }
      long timeoutLeft = call.startLeftMs();
      if (timeoutLeft < 1) {
        return Future.failedFuture(failure(FailureCodes.TIMEOUT, NOT_STARTED + "server '" + name
          + "': the call's time ran out after " + call.waitedMs() + " ms before it could start"));
      }
      CallOptions callOptions = new CallOptions().setTimeoutMs(timeoutLeft)
        .setMaxTotalTimeoutMs(Math.max(1, call.hardLeftMs())).setResetTimeoutOnProgress(true);
      if (req.progressAddress() != null) {
        JsonObject base = req.progressFields() == null ? new JsonObject() : req.progressFields().copy();
        forwarder[0] = new ProgressForwarder(vertx, req.progressAddress(), base.put("server", name).put("tool", req.name()));
        callOptions.setProgressHandler(forwarder[0]::onProgress);
      }
      ServerRequests.Caller caller = r.begin(req, call.hardAtNanos);
      callOptions.setCaller(caller);
      return c.callTool(req.name(), req.arguments(), callOptions).andThen(ar -> r.end(caller)).recover(err ->
        err instanceof McpException e && e.kind() == McpException.Kind.NOT_CONNECTED
          ? Future.failedFuture(new NotReady(e.getMessage())) : Future.failedFuture(err));
    }, Math.max(1, call.startLeftMs())).onComplete(ar -> {
      if (forwarder[0] != null) {
        forwarder[0].close();
      }
      if (ar.failed() && ar.cause() instanceof NotReady) {
        admit(call); // never sent: wait for the restart, within its deadline
        return;
      }
      metrics.toolCall(name, req.name(), startNanos, ar);
      if (ar.succeeded()) {
        call.msg.reply(ar.result(), SharedJsonCodec.shared());
      } else {
        fail(call, ToolCallFailures.of(ar.cause(), req, authorizations));
      }
    });
  }

  private static void fail(Call call, ReplyException f) {
    call.msg.fail(f.failureCode(), f.getMessage());
  }

  private static ReplyException failure(int code, String message) {
    return ToolCallFailures.failure(code, message);
  }
}
