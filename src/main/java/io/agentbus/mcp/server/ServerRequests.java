package io.agentbus.mcp.server;

import io.agentbus.bus.Actions;
import io.agentbus.limits.LogRateLimit;
import io.agentbus.mcp.ElicitationForm;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.Tenants;
import io.agentbus.mcp.ServerRequest;
import io.agentbus.mcp.ServerRequestHandler;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Routes the requests one connection's server sends during tool calls ({@code elicitation/create},
 * {@code sampling/createMessage}, {@code roots/list}) to the conversation that made the call.
 *
 * <p><b>Which call.</b> The client names the call when it can ({@link ServerRequest#caller()}:
 * the request came on the call's Streamable HTTP POST stream, or its {@code _meta} names the
 * call). Otherwise the request is routed only when every call in flight on the connection
 * belongs to one conversation; else (no call in flight, or calls of several conversations) an
 * elicitation is declined and a sampling request refused, with the reason, and {@code roots/list}
 * answers the server's own roots.
 *
 * <p>Confined to the server verticle's context.
 */
final class ServerRequests implements ServerRequestHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ServerRequests.class);
  /** The bus waits this much longer than the call's time left, so the conversation side answers first. */
  static final long BUS_MARGIN_MS = 2_000;
  /** At most this much (and at most a tenth) of a call's time left is kept for the server to use an answer. */
  static final long ANSWER_MARGIN_MS = 1_000;
  /** The {@code _meta} key of our reason for declining an elicitation. */
  static final String REASON_META = "io.agentbus/reason";

  /** One tool call in flight on the connection, and who made it. */
  static final class Caller {
    final ToolCallRequest req;
    final long hardAtNanos;

    Caller(ToolCallRequest req, long hardAtNanos) {
      this.req = req;
      this.hardAtNanos = hardAtNanos;
    }

    long msLeft() {
      return Math.max(0, (hardAtNanos - System.nanoTime()) / 1_000_000L);
    }
  }

  private final Vertx vertx;
  private final String server;
  private final McpServerOptions options;
  private final Consumer<String> notifier;
  private final Tenants tenants;
  private final Set<Caller> inFlight = new LinkedHashSet<>();
  /** What a server can make us log at will is rate-limited. */
  private final LogRateLimit refusals;
  /** The roots the server was last told of on this connection. */
  private JsonArray announcedRoots;

  /**
   * @param notifier sends a notification (its method) to the connection's server
   */
  ServerRequests(Vertx vertx, McpServerOptions options, Consumer<String> notifier) {
    this(vertx, options, Tenants.none(), notifier);
  }

  /**
   * @param tenants whose {@code roots} replace the server's for their calls
   * @param notifier sends a notification (its method) to the connection's server
   */
  ServerRequests(Vertx vertx, McpServerOptions options, Tenants tenants, Consumer<String> notifier) {
    this.vertx = vertx;
    this.tenants = tenants;
    this.notifier = notifier;
    this.server = options.getName();
    this.options = options;
    this.announcedRoots = serverRoots();
    this.refusals = LogRateLimit.lines(LOG, Level.INFO, server, "declined or refused server requests", LogRateLimit.DEFAULT_MAX_LINES,
      (delayMs, task) -> vertx.setTimer(delayMs, t -> task.run()));
  }

  /** The call's conversation's roots, else its tenant's for this server, else the server's. */
  private JsonArray rootsOf(ToolCallRequest req) {
    if (req.roots() != null) {
      return req.roots();
    }
    JsonArray tenantRoots = tenants.roots(req.tenant(), server);
    return tenantRoots != null ? tenantRoots : serverRoots();
  }

  private JsonArray serverRoots() {
    return options.getRoots() == null ? new JsonArray() : options.getRoots();
  }

  @Override
  public JsonObject capabilities() {
    JsonObject caps = new JsonObject()
      .put("roots", new JsonObject().put("listChanged", true))
      .put("elicitation", new JsonObject().put("form", new JsonObject()));
    if (options.getSampling().enabled()) {
      caps.put("sampling", new JsonObject());
    }
    return caps;
  }

  /**
   * A call starts: remembered until {@link #end}; when its conversation's roots differ from what
   * the server was last told, {@code notifications/roots/list_changed} goes first.
   */
  Caller begin(ToolCallRequest req, long hardAtNanos) {
    Caller c = new Caller(req, hardAtNanos);
    inFlight.add(c);
    JsonArray roots = rootsOf(req);
    if (!roots.equals(announcedRoots)) {
      announcedRoots = roots;
      notifier.accept("notifications/roots/list_changed");
    }
    return c;
  }

  void end(Caller c) {
    inFlight.remove(c);
  }

  @Override
  public Object callerOf(ServerRequest request) {
    return find(request);
  }

  @Override
  public Future<JsonObject> handle(ServerRequest request) {
    Caller caller = find(request);
    return switch (request.method()) {
      case "roots/list" -> {
        JsonArray roots = caller != null ? rootsOf(caller.req) : serverRoots();
        yield Future.succeededFuture(new JsonObject().put("roots", roots.copy()));
      }
      case "elicitation/create" -> elicit(request.params(), caller);
      case "sampling/createMessage" -> sample(request.params(), caller);
      default -> Future.failedFuture(rpcError(JsonRpc.METHOD_NOT_FOUND, "Method not found: " + request.method()));
    };
  }

  /** @return the call the request belongs to: named by the client, else the one conversation in flight */
  private Caller find(ServerRequest request) {
    if (request.caller() instanceof Caller c && inFlight.contains(c)) {
      return c;
    }
    Caller only = null;
    for (Caller c : inFlight) {
      String conversation = c.req.conversationId();
      if (conversation == null || (only != null && !conversation.equals(only.req.conversationId()))) {
        return null;
      }
      if (only == null) {
        only = c;
      }
    }
    return only;
  }

  /** @return why no user can be asked for this request, or {@code null} when {@code caller} can be */
  private String unroutable(Caller caller) {
    if (caller == null) {
      return inFlight.isEmpty() ? "server '" + server + "' asked outside any tool call, so there is no user to ask"
        : "server '" + server + "' has tool calls of several conversations in flight and did not say which one it asks for";
    }
    if (caller.req.conversationId() == null || caller.req.callerAddress() == null) {
      return "the tool call was not made by a conversation, so there is no user to ask";
    }
    return null;
  }

  private Future<JsonObject> elicit(JsonObject params, Caller caller) {
    Object mode = params.getValue("mode");
    if (mode != null && !"form".equals(mode)) {
      return Future.failedFuture(rpcError(JsonRpc.INVALID_PARAMS, "elicitation mode '" + mode + "' is not supported (form only)"));
    }
    if (!(params.getValue("message") instanceof String message)) {
      return Future.failedFuture(rpcError(JsonRpc.INVALID_PARAMS, "elicitation/create needs a string 'message'"));
    }
    ElicitationForm form;
    try {
      form = ElicitationForm.parse(params.getValue("requestedSchema"));
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(rpcError(JsonRpc.INVALID_PARAMS, e.getMessage()));
    }
    String why = unroutable(caller);
    if (why != null) {
      if (refusals.permit()) {
        LOG.info("[{}] declined an elicitation: {}", server, why);
      }
      return Future.succeededFuture(new JsonObject().put("action", "decline")
        .put("_meta", new JsonObject().put(REASON_META, why)));
    }
    JsonObject body = callerFields(caller).put("message", message).put("requestedSchema", form.schema().copy());
    if (caller.req.progressAddress() != null) {
      body.put("eventsAddress", caller.req.progressAddress());
      JsonObject fields = caller.req.progressFields() == null ? new JsonObject() : caller.req.progressFields().copy();
      fields.remove("type");
      body.put("eventFields", fields.put("server", server));
    }
    return ask(Actions.ELICIT, caller, body)
      .map(Message::body)
      .otherwise(err -> {
        if (refusals.permit()) {
          LOG.info("[{}] elicitation for conversation {} got no answer: {}", server, caller.req.conversationId(), err.getMessage());
        }
        return new JsonObject().put("action", "cancel");
      });
  }

  private Future<JsonObject> sample(JsonObject params, Caller caller) {
    if (!options.getSampling().enabled()) {
      return Future.failedFuture(rpcError(JsonRpc.METHOD_NOT_FOUND, "Method not found: sampling/createMessage"
        + " (sampling is not enabled for server '" + server + "')"));
    }
    String why = unroutable(caller);
    if (why != null) {
      if (refusals.permit()) {
        LOG.info("[{}] refused a sampling request: {}", server, why);
      }
      return Future.failedFuture(rpcError(-1, "sampling request refused: " + why));
    }
    JsonObject body = callerFields(caller).put("params", params.copy())
      .put("maxTokens", options.getSampling().maxTokens()).put("maxCallsPerTurn", options.getSampling().maxCallsPerTurn())
      .put("approval", options.getSampling().asksApproval());
    return ask(Actions.SAMPLE, caller, body).<JsonObject>map(Message::body)
      .recover(err -> Future.failedFuture(rpcError(-1, "sampling request refused: " + err.getMessage())));
  }

  private JsonObject callerFields(Caller caller) {
    long left = caller.msLeft();
    // the user's time ends a little before the call's, so the server still gets its answer (cancel) in time
    JsonObject body = new JsonObject().put("conversationId", caller.req.conversationId()).put("server", server)
      .put("timeoutMs", Math.max(1, left - Math.min(ANSWER_MARGIN_MS, left / 10)));
    if (caller.req.tenant() != null) {
      body.put("tenant", caller.req.tenant());
    }
    if (caller.req.toolUseId() != null) {
      body.put("toolUseId", caller.req.toolUseId());
    }
    return body;
  }

  private Future<Message<JsonObject>> ask(String action, Caller caller, JsonObject body) {
    DeliveryOptions delivery = new DeliveryOptions().addHeader(Actions.HEADER, action)
      .setSendTimeout(caller.msLeft() + BUS_MARGIN_MS);
    return vertx.eventBus().request(Objects.requireNonNull(caller.req.callerAddress()), body, delivery);
  }

  private static McpException rpcError(int code, String message) {
    return new McpException(McpException.Kind.RPC_ERROR, message, code, null, null);
  }
}
