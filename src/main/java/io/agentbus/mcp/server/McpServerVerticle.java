package io.agentbus.mcp.server;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.config.McpServerOptions;
import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns one configured MCP server: its connection, supervision (restart with backoff and
 * jitter, DOWN after repeated failures) and its event-bus address
 * {@code agentbus.mcp.<name>} (actions {@code tools/list}, {@code tools/call},
 * {@code status}). Deploy it with the server's {@link McpServerOptions#toJson()} as config.
 * Deployment completes after the first connection attempt, whether it succeeded or not.
 */
public class McpServerVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(McpServerVerticle.class);
  /** A connection that stayed up this long resets the consecutive-failure count. */
  static final long STABLE_AFTER_MS = 30_000;

  private McpServerOptions options;
  private String name;
  private ToolFilter filter;
  private RestartBackoff backoff;
  private CallGate gate;
  private McpClient client;
  private ServerState state = ServerState.STARTING;
  private String detail;
  private List<JsonObject> tools = List.of();
  private int consecutiveFailures;
  private long restarts;
  private long readyAtNanos;
  private long restartTimer = -1;
  private boolean stopping;
  private MessageConsumer<JsonObject> consumer;

  @Override
  public Future<?> start() {
    SharedJsonCodec.register(vertx);
    options = new McpServerOptions(config());
    name = options.getName();
    filter = new ToolFilter(options.getAllowedTools(), options.getDisabledTools());
    backoff = new RestartBackoff(options.getRestartInitialBackoffMs(), options.getRestartMaxBackoffMs());
    gate = new CallGate(vertx, name, options.getMaxConcurrentCalls(), options.getMaxQueuedCalls());
    consumer = vertx.eventBus().localConsumer(Addresses.mcp(name), this::onRequest);
    return consumer.completion().compose(v -> connect());
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    vertx.cancelTimer(restartTimer);
    gate.failQueued(failure(FailureCodes.UNAVAILABLE, "server '" + name + "' is stopping"));
    setState(ServerState.STOPPED, null);
    return client == null ? Future.succeededFuture() : client.close();
  }

  private Future<Void> connect() {
    McpClient c = McpClient.create(vertx, options);
    client = c;
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
        readyAtNanos = System.nanoTime();
        updateTools(c.tools());
        setState(ServerState.READY, null);
      }
      return null;
    }).recover(err -> {
      if (client == c && !stopping) {
        LOG.warn("[{}] failed to start: {}", name, err.getMessage());
        consecutiveFailures++;
        scheduleRestart(err.getMessage());
      }
      return Future.succeededFuture();
    });
  }

  private void onCrash(Throwable err) {
    if (stopping) {
      return;
    }
    gate.failQueued(failure(FailureCodes.UNAVAILABLE, err.getMessage()));
    if ((System.nanoTime() - readyAtNanos) / 1_000_000 > STABLE_AFTER_MS) {
      consecutiveFailures = 0;
    }
    consecutiveFailures++;
    scheduleRestart(err.getMessage());
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
        AgentbusMetrics.get(vertx).mcpRestart(name);
        connect();
      }
    });
  }

  private void updateTools(List<JsonObject> all) {
    tools = all.stream().filter(t -> filter.allows(t.getString("name"))).toList();
    JsonObject event = new JsonObject().put("server", name).put("tools", new JsonArray(tools));
    vertx.eventBus().publish(Addresses.mcpToolsChanged(name), event);
    vertx.eventBus().publish(Addresses.MCP_TOOLS_CHANGED_ALL, event);
  }

  private void setState(ServerState newState, String why) {
    state = newState;
    detail = why;
    JsonObject status = status();
    vertx.eventBus().publish(Addresses.mcpStatus(name), status);
    vertx.eventBus().publish(Addresses.MCP_STATUS_ALL, status);
  }

  private JsonObject status() {
    JsonObject s = new JsonObject()
      .put("server", name)
      .put("status", state.name())
      .put("restarts", restarts)
      .put("consecutiveFailures", consecutiveFailures)
      .put("toolCount", tools.size())
      .put("runningCalls", gate.running())
      .put("queuedCalls", gate.queued());
    if (detail != null) {
      s.put("detail", detail);
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
      case Actions.TOOLS_LIST -> msg.reply(new JsonObject().put("server", name).put("status", state.name())
        .put("tools", new JsonArray(tools)));
      case Actions.STATUS -> msg.reply(status());
      case Actions.TOOLS_CALL -> call(msg);
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
    if (state != ServerState.READY) {
      msg.fail(FailureCodes.UNAVAILABLE, "server '" + name + "' is " + state.name().toLowerCase()
        + (detail == null ? "" : ": " + detail));
      return;
    }
    long timeout = req.timeoutMs() != null ? req.timeoutMs() : options.getTimeoutMs();
    McpClient c = client;
    long start = System.nanoTime();
    gate.submit(leftMs -> c.callTool(req.name(), req.arguments(), callOptions(req, leftMs)), timeout).onComplete(ar -> {
      AgentbusMetrics.get(vertx).toolCall(name, req.name(), start, ar);
      if (ar.succeeded()) {
        msg.reply(ar.result(), SharedJsonCodec.shared());
      } else {
        ReplyException f = toFailure(ar.cause());
        msg.fail(f.failureCode(), f.getMessage());
      }
    });
  }

  /** @param timeoutMs what is left of the call's timeout once it got a call slot */
  private CallOptions callOptions(ToolCallRequest req, long timeoutMs) {
    CallOptions callOptions = new CallOptions().setTimeoutMs(timeoutMs);
    if (req.progressAddress() != null) {
      callOptions.setProgressHandler(p -> vertx.eventBus().send(req.progressAddress(), new JsonObject()
        .put("server", name).put("tool", req.name()).put("progress", p.progress())
        .put("total", p.total()).put("message", p.message())));
    }
    return callOptions;
  }

  private static ReplyException toFailure(Throwable err) {
    if (err instanceof ReplyException re) {
      return re;
    }
    if (err instanceof McpException e) {
      int code = switch (e.kind()) {
        case TIMEOUT -> FailureCodes.TIMEOUT;
        case RPC_ERROR, PROTOCOL -> FailureCodes.RPC_ERROR;
        case QUEUE_FULL -> FailureCodes.QUEUE_FULL;
        case CONNECTION_CLOSED, NOT_CONNECTED, TRANSPORT, UNSUPPORTED_VERSION -> FailureCodes.UNAVAILABLE;
      };
      return failure(code, e.getMessage());
    }
    return failure(FailureCodes.INTERNAL, String.valueOf(err.getMessage()));
  }

  private static ReplyException failure(int code, String message) {
    return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, code, message);
  }
}
