package io.agentbus.dispatch;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.catalog.ToolCatalog;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
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
 * never retried. Stateless: deploy as many instances as wanted. The work itself is
 * {@link ToolDispatcher}, which conversations call in-process on their own context.
 */
public class DispatcherVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(DispatcherVerticle.class);

  private final ToolCatalog injectedCatalog;
  private DispatcherOptions options;
  private ToolDispatcher dispatcher;

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
    dispatcher = new ToolDispatcher(vertx, injectedCatalog != null ? injectedCatalog : ToolCatalog.shared(vertx), options);
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
    dispatcher.dispatch(request).onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result(), SharedJsonCodec.shared());
      } else {
        log.error("dispatch failed unexpectedly", ar.cause());
        msg.fail(FailureCodes.INTERNAL, String.valueOf(ar.cause().getMessage()));
      }
    });
  }
}
