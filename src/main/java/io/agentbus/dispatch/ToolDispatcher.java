package io.agentbus.dispatch;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.catalog.CatalogEntry;
import io.agentbus.catalog.CatalogSnapshot;
import io.agentbus.catalog.ToolCatalog;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher's work, callable in-process on the caller's context: one batch of tool_use
 * blocks in, ONE user message of tool_results out (see {@link DispatcherVerticle} for the
 * rules). The conversation runs it on its own context, so that a turn crosses to another event
 * loop only where an MCP connection lives; {@link DispatcherVerticle} serves the same on
 * {@code agentbus.dispatch}. Stateless apart from its settings: one per context is enough.
 */
public final class ToolDispatcher {

  private static final Logger log = LoggerFactory.getLogger(ToolDispatcher.class);

  private final Vertx vertx;
  private final ToolCatalog catalog;
  private final DispatcherOptions options;
  private final ResultAdapter adapter;
  private final ServerWatch watch;

  /**
   * @param vertx the Vert.x instance (the MCP server verticles are reached on its bus)
   * @param catalog the catalog to resolve names with
   * @param options the settings (copied)
   */
  public ToolDispatcher(Vertx vertx, ToolCatalog catalog, DispatcherOptions options) {
    SharedJsonCodec.register(vertx);
    this.vertx = vertx;
    this.catalog = catalog;
    this.options = new DispatcherOptions(options);
    this.adapter = new ResultAdapter(this.options.getMaxResultChars(), this.options.getMaxImageBytes());
    this.watch = new ServerWatch(vertx, catalog);
  }

  /**
   * Runs a batch: every call at once, results joined by position; never fails.
   *
   * @return the user message {@code {role:"user", content:[tool_result...]}}
   */
  public Future<JsonObject> dispatch(DispatchRequest request) {
    return dispatch(request, ToolApprover.NONE);
  }

  /**
   * Runs a batch as {@link #dispatch(DispatchRequest)} does; a call that {@code approver} says
   * needs approval waits for it (after its arguments are validated) while the others run, and
   * a call that is not approved gets an {@code is_error} result with the reason, never reaching
   * its server.
   */
  public Future<JsonObject> dispatch(DispatchRequest request, ToolApprover approver) {
    CatalogSnapshot current = catalog.current();
    CatalogSnapshot seen = request.catalogVersion() == null ? current : catalog.version(request.catalogVersion());
    List<Future<JsonObject>> results = new ArrayList<>(request.calls().size());
    for (DispatchRequest.ToolUse use : request.calls()) {
      results.add(run(use, request, seen, current, approver));
    }
    return Future.join(results).map(done -> {
      JsonArray content = new JsonArray();
      results.forEach(f -> content.add(f.result()));
      return new JsonObject().put("role", "user").put("content", content);
    });
  }

  private Future<JsonObject> run(DispatchRequest.ToolUse use, DispatchRequest request, CatalogSnapshot seen, CatalogSnapshot current,
                                 ToolApprover approver) {
    long start = System.nanoTime();
    CallEvents events = new CallEvents(vertx, request.eventsAddress(), request.eventFields(), use);
    CatalogEntry entry = resolveEntry(use.name(), seen, current);
    events.started(entry);
    String refusal = refusal(use, entry, seen, current);
    if (refusal != null) {
      log.debug("[{}] tool call {} ({}) not run: {}", request.conversationId(), use.id(), use.name(), refusal);
      events.finished(start, true);
      return Future.succeededFuture(ToolResults.error(use.id(), refusal));
    }
    // a slow schema check (an untrusted pattern) finishes on a worker, never on this loop
    return entry.input().check(vertx, use.input()).compose(violations -> {
      if (!violations.isEmpty()) {
        events.finished(start, true);
        return Future.succeededFuture(ToolResults.error(use.id(), "Invalid arguments for '" + use.name()
          + "', so the tool was not called:\n- " + String.join("\n- ", violations)));
      }
      long budgetMs = request.budgetMs() != null ? request.budgetMs() : options.defaultBudgetMs();
      if (budgetMs < 1 || !approver.needsApproval(entry)) {
        return call(use, request, entry, events, start, budgetMs);
      }
      return approver.approve(use, entry, budgetMs).compose(refused -> {
        if (refused != null) {
          log.debug("[{}] tool call {} ({}) not approved: {}", request.conversationId(), use.id(), use.name(), refused);
          events.finished(start, true);
          return Future.succeededFuture(ToolResults.error(use.id(), refused));
        }
        // the wait for approval came out of the call's budget
        return call(use, request, entry, events, start, budgetMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      });
    });
  }

  private Future<JsonObject> call(DispatchRequest.ToolUse use, DispatchRequest request, CatalogEntry entry,
                                  CallEvents events, long start, long budgetMs) {
    Long timeoutMs = request.timeoutMs() != null ? request.timeoutMs() : options.getTimeoutMs();
    if (budgetMs < 1) {
      events.finished(start, true);
      return Future.succeededFuture(ToolResults.error(use.id(), CallFailures.NO_TIME_LEFT));
    }
    // One deadline: the server verticle bounds the call (queueing, progress extensions and all)
    // by budgetMs, so it always answers before this bus timeout, which is only a safety net.
    long busTimeout = budgetMs + options.getSendTimeoutMarginMs();
    JsonObject body = new JsonObject().put("name", entry.tool()).put("arguments", use.input()).put("budgetMs", budgetMs)
      .put("toolUseId", use.id());
    if (request.tenant() != null) {
      body.put("tenant", request.tenant());
    }
    if (request.conversation() != null) {
      body.put("conversationId", request.conversation());
    }
    if (request.caller() != null && request.caller().getValue("address") instanceof String address) {
      body.put("callerAddress", address);
    }
    if (request.caller() != null && request.caller().getValue("roots") != null) {
      body.put("roots", request.caller().getValue("roots"));
    }
    if (timeoutMs != null) {
      body.put("timeoutMs", Math.min(timeoutMs, budgetMs));
    }
    if (request.eventsAddress() != null) {
      body.put("progressAddress", request.eventsAddress()).put("progressFields", events.event("tool_call_progress"));
    }
    DeliveryOptions delivery = SharedJsonCodec.shared().addHeader(Actions.HEADER, Actions.TOOLS_CALL).setSendTimeout(busTimeout);
    return watch.watch(entry.server(), vertx.eventBus().<JsonObject>request(Addresses.mcp(entry.server()), body, delivery))
      .map(reply -> {
        JsonObject result = reply.body() == null ? new JsonObject() : reply.body();
        boolean isError = Boolean.TRUE.equals(result.getValue("isError"));
        JsonObject toolResult = ToolResults.result(use.id(), adapter.adapt(result, entry, request.provider()), isError);
        events.finished(start, isError);
        return toolResult;
      })
      .otherwise(err -> {
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        String reason = CallFailures.reason(err, entry.server(), elapsedMs);
        log.info("[{}] tool call {} ({}) failed after {} ms: {}", request.conversationId(), use.id(), entry.name(), elapsedMs,
          err.getMessage());
        events.finished(start, true);
        return ToolResults.error(use.id(), reason);
      });
  }

  /** @return the entry to call (current schema and server mapping), or {@code null} */
  private static CatalogEntry resolveEntry(String name, CatalogSnapshot seen, CatalogSnapshot current) {
    CatalogEntry inSeen = (seen != null ? seen : current).byName(name);
    return inSeen == null ? null : current.byTool(inSeen.server(), inSeen.tool());
  }

  /** @return why the call must not be made, or {@code null} */
  private static String refusal(DispatchRequest.ToolUse use, CatalogEntry entry, CatalogSnapshot seen, CatalogSnapshot current) {
    if (entry == null) {
      boolean knownThen = (seen != null ? seen : current).byName(use.name()) != null;
      if (knownThen) {
        return "Tool '" + use.name() + "' is no longer available: its server no longer offers it.";
      }
      return seen == null
        ? "Unknown tool '" + use.name() + "' (or it is no longer available)."
        : "Unknown tool '" + use.name() + "': it is not one of the tools offered.";
    }
    if (use.invalidArguments() != null) {
      return "The arguments for '" + use.name() + "' are not valid JSON, so the tool was not called: "
        + ResultAdapter.truncate(use.invalidArguments(), 200);
    }
    if (use.input() == null) {
      return "The arguments for '" + use.name() + "' must be a JSON object, so the tool was not called.";
    }
    return null;
  }

  /**
   * Publishes {@code tool_call_started} / {@code tool_call_finished} when asked to; the server
   * verticle publishes {@code tool_call_progress} there too, with the fields of
   * {@code event("tool_call_progress")} (throttled, see {@code ProgressForwarder}).
   */
  private record CallEvents(io.vertx.core.Vertx vertx, String address, JsonObject fields, DispatchRequest.ToolUse use) {

    private JsonObject event(String type) {
      JsonObject event = fields == null ? new JsonObject() : fields.copy();
      return event.put("type", type).put("tool_use_id", use.id()).put("name", use.name());
    }

    void started(CatalogEntry entry) {
      if (address != null) {
        JsonObject event = event("tool_call_started");
        if (entry != null) {
          event.put("server", entry.server()).put("tool", entry.tool());
        }
        vertx.eventBus().publish(address, event);
      }
    }

    void finished(long startNanos, boolean isError) {
      if (address != null) {
        vertx.eventBus().publish(address, event("tool_call_finished").put("is_error", isError)
          .put("duration_ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos)));
      }
    }
  }
}
