package io.agentbus.conversation;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.catalog.CatalogEntry;
import io.agentbus.dispatch.DispatchRequest;
import io.agentbus.dispatch.ToolApprover;
import io.agentbus.mcp.ToolApproval;
import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tool calls of one turn that wait for a person's approval. The first call that needs one
 * registers the turn on {@code agentbus.conversation.<id>.approvals} (cluster-wide, so an answer
 * reaches the node running the turn) and each call publishes {@code approval_required}; an
 * answer, a timeout ({@code approvalTimeoutMs}, never past the call's budget) or the end of the
 * turn decides it, publishes {@code approval_resolved}, and a call that is not approved gets
 * an {@code is_error} result with the reason. Everything is released when the turn ends
 * ({@link #close()}). Touched only on the turn's context.
 *
 * <p>On its address it serves {@link Actions#APPROVE} {@code {toolUseId, approve, reason?}}
 * (404 for an id that never waited in this turn, 409 for one already decided) and
 * {@link Actions#APPROVALS} (the calls waiting); the conversation service forwards both after
 * checking the caller's tenant.
 */
final class TurnApprovals implements ToolApprover {

  private static final Logger LOG = LoggerFactory.getLogger(TurnApprovals.class);
  /** Approvals one turn may ask for in all (a bound on the maps; a reply holds far fewer tool_use blocks). */
  static final int MAX_PER_TURN = 1_000;

  private final Vertx vertx;
  private final String conversationId;
  private final TurnEvents events;
  private final ToolApproval fallback;
  private final long timeoutMs;
  private final AgentbusMetrics metrics;
  /** The runner's turns that asked for an approval (this one joins at its first), for {@link #refuseAll}. */
  private final Set<TurnApprovals> asking;
  private Map<String, Pending> pending;
  private Set<String> decided;
  private MessageConsumer<JsonObject> consumer;
  private Future<Void> registered;
  private boolean closed;
  /** Why no call of this turn can be approved any more, or {@code null}. */
  private String refusedBecause;

  private static final class Pending {
    final String name;
    final JsonObject description;
    final Promise<String> decision = Promise.promise();
    long timer;

    Pending(String name, JsonObject description) {
      this.name = name;
      this.description = description;
    }
  }

  TurnApprovals(Vertx vertx, String conversationId, TurnEvents events, ToolApproval fallback, long timeoutMs,
                Set<TurnApprovals> asking) {
    this.vertx = vertx;
    this.asking = asking;
    this.conversationId = conversationId;
    this.events = events;
    this.fallback = fallback;
    this.timeoutMs = timeoutMs;
    this.metrics = AgentbusMetrics.get(vertx);
  }

  @Override
  public boolean needsApproval(CatalogEntry entry) {
    return entry.asksApproval(fallback);
  }

  @Override
  public Future<String> approve(DispatchRequest.ToolUse use, CatalogEntry entry, long budgetMs) {
    long waitMs = Math.min(timeoutMs, budgetMs);
    JsonObject description = new JsonObject()
      .put("tool_use_id", use.id())
      .put("name", use.name())
      .put("server", entry.server())
      .put("tool", entry.tool())
      .put("arguments", use.input())
      .put("description", entry.description())
      .put("destructive", entry.destructive())
      .put("timeoutMs", waitMs)
      .put("expiresAt", System.currentTimeMillis() + waitMs);
    if (entry.definition().getValue("title") instanceof String title) {
      description.put("title", title);
    }
    if (entry.definition().getValue("annotations") instanceof JsonObject annotations) {
      description.put("annotations", annotations);
    }
    return ask(use.id(), use.name(), description, waitMs);
  }

  /**
   * Asks the user to approve something of this turn other than a tool call (a server's sampling
   * request), the same way: an {@code approval_required} event with {@code description}, answered
   * by the same route and action.
   *
   * @param id its id among this turn's approvals ({@code tool_use_id} in the events and the route)
   * @param name what the user is asked about, e.g. {@code sampling by server 'x'}
   * @param description the event's fields ({@code tool_use_id}, {@code name}, {@code timeoutMs} included)
   * @return {@code null} once approved, else why not (denied, timed out, the turn ended)
   */
  Future<String> ask(String id, String name, JsonObject description, long waitMs) {
    if (closed) {
      return Future.succeededFuture(notRun(name, "the turn ended before it was approved"));
    }
    if (refusedBecause != null) {
      return Future.succeededFuture(notRun(name, refusedBecause));
    }
    if (pending == null) {
      pending = new LinkedHashMap<>();
      decided = new HashSet<>();
      asking.add(this);
    }
    if (pending.containsKey(id) || decided.contains(id)) {
      return Future.succeededFuture(notRun(name, "its id repeats one already asked about in this turn"));
    }
    if (pending.size() + decided.size() >= MAX_PER_TURN) {
      return Future.succeededFuture(notRun(name, "this turn already asked for " + MAX_PER_TURN + " approvals"));
    }
    Pending p = new Pending(name, description);
    pending.put(id, p);
    metrics.approvalAsked();
    p.timer = vertx.setTimer(Math.max(1, waitMs), t -> decide(id, false, null, "timeout"));
    if (registered == null) {
      consumer = vertx.eventBus().consumer(Addresses.conversationApprovals(conversationId), this::onMessage);
      registered = consumer.completion();
    }
    // published once answers can reach the turn, so nobody answers into the void
    registered.onComplete(ar -> {
      if (ar.failed()) {
        LOG.warn("[{}] cannot take approvals: {}", conversationId, ar.cause().getMessage());
        decide(id, false, "approvals cannot be received: " + ar.cause().getMessage(), "error");
      } else if (pending.get(id) == p) {
        events.approvalRequired(description.copy());
      }
    });
    return p.decision.future();
  }

  /**
   * Decides a waiting call; @return whether it was waiting.
   *
   * @param by {@code user}, {@code timeout}, {@code shutdown}, {@code turn_ended} or {@code error}
   */
  private boolean decide(String toolUseId, boolean approved, String reason, String by) {
    Pending p = pending == null ? null : pending.remove(toolUseId);
    if (p == null) {
      return false;
    }
    vertx.cancelTimer(p.timer);
    decided.add(toolUseId);
    metrics.approvalDecided(approved ? "approved" : "user".equals(by) ? "denied" : by);
    LOG.debug("[{}] tool call {} ({}) {} ({})", conversationId, toolUseId, p.name, approved ? "approved" : "not approved", by);
    JsonObject decision = new JsonObject().put("tool_use_id", toolUseId).put("name", p.name).put("approved", approved)
      .put("decidedBy", by);
    if (reason != null) {
      decision.put("reason", reason);
    }
    events.approvalResolved(decision);
    if (approved) {
      p.decision.complete(null);
    } else {
      p.decision.complete(refusal(p, reason, by));
    }
    return true;
  }

  private String refusal(Pending p, String reason, String by) {
    return switch (by) {
      case "user" -> "The user denied this call of '" + p.name + "', so the tool was not called."
        + (reason == null || reason.isBlank() ? "" : " Their reason: " + reason);
      case "timeout" -> notRun(p.name, "nobody approved it within " + p.description.getLong("timeoutMs") + " ms");
      default -> notRun(p.name, reason);
    };
  }

  private static String notRun(String name, String why) {
    return "This call of '" + name + "' needed approval and was not run: " + why + ".";
  }

  private void onMessage(Message<JsonObject> msg) {
    String action = msg.headers().get(Actions.HEADER);
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    if (Actions.APPROVALS.equals(action)) {
      JsonArray waiting = new JsonArray();
      if (pending != null) {
        pending.values().forEach(p -> waiting.add(p.description.copy()));
      }
      msg.reply(new JsonObject().put("conversationId", conversationId).put("approvals", waiting));
      return;
    }
    if (!Actions.APPROVE.equals(action)) {
      msg.fail(FailureCodes.NOT_FOUND, "unknown action '" + action + "' (approve, approvals)");
      return;
    }
    if (!(body.getValue("toolUseId") instanceof String id) || !(body.getValue("approve") instanceof Boolean approve)) {
      msg.fail(FailureCodes.BAD_REQUEST, "fields 'toolUseId' (a string) and 'approve' (a boolean) are required");
      return;
    }
    String reason = body.getValue("reason") instanceof String r ? r : null;
    if (decide(id, approve, reason, "user")) {
      msg.reply(new JsonObject().put("conversationId", conversationId).put("toolUseId", id).put("approved", approve));
    } else if (decided != null && decided.contains(id)) {
      msg.fail(FailureCodes.CONFLICT, "tool_use '" + id + "' of conversation '" + conversationId
        + "' no longer waits for approval: it was already answered or timed out");
    } else {
      msg.fail(FailureCodes.NOT_FOUND, "no tool call '" + id + "' waits for approval in conversation '" + conversationId + "'");
    }
  }

  /** No call of this turn can be approved any more (Agentbus drains): the waiting ones and later ones are refused. */
  void refuseAll(String why) {
    refusedBecause = why;
    if (pending != null) {
      new ArrayList<>(pending.keySet()).forEach(id -> decide(id, false, why, "shutdown"));
    }
  }

  /** The turn ended: a call still waiting is refused, and the turn's address is released. */
  void close() {
    closed = true;
    asking.remove(this);
    if (pending != null) {
      new ArrayList<>(pending.keySet()).forEach(id -> decide(id, false, "the turn ended before it was approved", "turn_ended"));
    }
    if (consumer != null) {
      consumer.unregister();
      consumer = null;
    }
  }
}
