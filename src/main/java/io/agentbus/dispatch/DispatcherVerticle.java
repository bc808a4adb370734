package io.agentbus.dispatch;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.catalog.CatalogEntry;
import io.agentbus.catalog.CatalogSnapshot;
import io.agentbus.catalog.ToolCatalog;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one assistant message's tool_use blocks and answers with ONE canonical user message:
 * {@code {role:"user", content:[tool_result per tool_use, same order]}}.
 *
 * <p>Address {@link Addresses#DISPATCH}, action {@link Actions#DISPATCH}, body
 * {@link DispatchRequest}. Every tool_use is answered exactly once: MCP {@code isError},
 * JSON-RPC errors, timeouts, a server that is down or busy, an unknown or vanished tool and
 * invalid arguments all become {@code is_error: true} results with a short reason, and one
 * failure never drops the others. A malformed body, a missing id or duplicate ids fail the
 * request with {@link FailureCodes#BAD_REQUEST} before anything runs.
 *
 * <p>Names are resolved against the snapshot version the model saw ({@code catalogVersion},
 * kept by {@link ToolCatalog}); a tool that its server no longer offers in the current
 * snapshot answers "no longer available". Arguments are validated against the tool's
 * {@code inputSchema}; then every call is sent at once to its {@code agentbus.mcp.<server>}
 * (which caps concurrency per server) and the results are joined by position. Calls are
 * never retried. Stateless: deploy as many instances as wanted.
 */
public class DispatcherVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(DispatcherVerticle.class);

  private final ToolCatalog injectedCatalog;
  private DispatcherOptions options;
  private ToolCatalog catalog;
  private ResultAdapter adapter;

  /** Options from {@code config()}; the catalog is {@link ToolCatalog#shared}. */
  public DispatcherVerticle() {
    this(null, null);
  }

  /**
   * @param catalog the catalog to resolve names with ({@code null}: {@link ToolCatalog#shared})
   * @param options the settings ({@code null}: from {@code config()})
   */
  public DispatcherVerticle(ToolCatalog catalog, DispatcherOptions options) {
    this.injectedCatalog = catalog;
    this.options = options == null ? null : new DispatcherOptions(options);
  }

  @Override
  public Future<?> start() {
    SharedJsonCodec.register(vertx);
    if (options == null) {
      options = new DispatcherOptions(config());
    }
    catalog = injectedCatalog != null ? injectedCatalog : ToolCatalog.shared(vertx);
    adapter = new ResultAdapter(options.getMaxResultChars(), options.getMaxImageBytes());
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.DISPATCH, this::onMessage).completion();
  }

  private void onMessage(Message<JsonObject> msg) {
    String action = msg.headers().get(Actions.HEADER);
    if (action != null && !Actions.DISPATCH.equals(action)) {
      msg.fail(FailureCodes.NOT_FOUND, "unknown action '" + action + "' on " + Addresses.DISPATCH);
      return;
    }
    DispatchRequest request;
    try {
      request = DispatchRequest.parse(msg.body());
    } catch (DispatchRequest.Invalid e) {
      msg.fail(FailureCodes.BAD_REQUEST, e.getMessage());
      return;
    }
    dispatch(request).onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result(), SharedJsonCodec.shared());
      } else {
        log.error("dispatch failed unexpectedly", ar.cause());
        msg.fail(FailureCodes.INTERNAL, String.valueOf(ar.cause().getMessage()));
      }
    });
  }

  /**
   * Runs a batch in-process (what the bus handler does).
   *
   * @return the user message {@code {role:"user", content:[tool_result...]}}
   */
  public Future<JsonObject> dispatch(DispatchRequest request) {
    CatalogSnapshot current = catalog.current();
    CatalogSnapshot seen = request.catalogVersion() == null ? current : catalog.version(request.catalogVersion());
    List<Future<JsonObject>> results = new ArrayList<>(request.calls().size());
    for (DispatchRequest.ToolUse use : request.calls()) {
      results.add(run(use, request, seen, current));
    }
    return Future.join(results).map(done -> {
      JsonArray content = new JsonArray();
      results.forEach(f -> content.add(f.result()));
      return new JsonObject().put("role", "user").put("content", content);
    });
  }

  private Future<JsonObject> run(DispatchRequest.ToolUse use, DispatchRequest request, CatalogSnapshot seen, CatalogSnapshot current) {
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
    Long timeoutMs = request.timeoutMs() != null ? request.timeoutMs() : options.getTimeoutMs();
    long busTimeout = timeoutMs != null ? timeoutMs + options.getSendTimeoutMarginMs() : options.getFallbackSendTimeoutMs();
    JsonObject body = new JsonObject().put("name", entry.tool()).put("arguments", use.input());
    if (timeoutMs != null) {
      body.put("timeoutMs", timeoutMs);
    }
    DeliveryOptions delivery = SharedJsonCodec.shared().addHeader(Actions.HEADER, Actions.TOOLS_CALL).setSendTimeout(busTimeout);
    return vertx.eventBus().<JsonObject>request(Addresses.mcp(entry.server()), body, delivery)
      .map(reply -> {
        JsonObject result = reply.body() == null ? new JsonObject() : reply.body();
        boolean isError = Boolean.TRUE.equals(result.getValue("isError"));
        JsonObject toolResult = ToolResults.result(use.id(), adapter.adapt(result, entry, request.provider()), isError);
        events.finished(start, isError);
        return toolResult;
      })
      .otherwise(err -> {
        String reason = CallFailures.reason(err, entry.server(), busTimeout);
        log.info("[{}] tool call {} ({}) failed: {}", request.conversationId(), use.id(), entry.name(), err.getMessage());
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
    List<String> violations = entry.input().violations(use.input());
    if (!violations.isEmpty()) {
      return "Invalid arguments for '" + use.name() + "', so the tool was not called:\n- " + String.join("\n- ", violations);
    }
    return null;
  }

  /** Publishes {@code tool_call_started} / {@code tool_call_finished} when asked to. */
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
