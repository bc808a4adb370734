package io.agentbus.mcp.impl;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists a server's tools across {@code nextCursor} pages and keeps the last listing.
 * {@code tools/list_changed} notifications that arrive while a listing runs are coalesced
 * into one more listing afterwards. Tools that require task-augmented calls are hidden
 * (Agentbus does not run tasks), each logged once. Confined to the client's context.
 */
final class ToolLister {

  private static final Logger LOG = LoggerFactory.getLogger(ToolLister.class);
  static final int MAX_PAGES = 1000;

  private final String server;
  private final BiFunction<String, JsonObject, Future<JsonObject>> requester;
  private final Handler<List<JsonObject>> relisted;
  private final Set<String> hiddenLogged = new HashSet<>();
  private List<JsonObject> tools = List.of();
  private Future<List<JsonObject>> inFlight;
  private boolean changedMeanwhile;

  ToolLister(String server, BiFunction<String, JsonObject, Future<JsonObject>> requester,
             Handler<List<JsonObject>> relisted) {
    this.server = server;
    this.requester = requester;
    this.relisted = relisted;
  }

  List<JsonObject> tools() {
    return tools;
  }

  /** Lists now, or joins the listing already running. */
  Future<List<JsonObject>> list() {
    if (inFlight != null) {
      return inFlight;
    }
    Future<List<JsonObject>> f = fetch(null, new ArrayList<>(), new HashSet<>(), 1);
    if (f.isComplete()) {
      return done(f);
    }
    inFlight = f;
    return f.andThen(ar -> {
      inFlight = null;
      done(f);
    });
  }

  private Future<List<JsonObject>> done(Future<List<JsonObject>> f) {
    if (f.succeeded()) {
      tools = List.copyOf(f.result());
    }
    if (changedMeanwhile) {
      changedMeanwhile = false;
      relist();
    }
    return f;
  }

  /**
   * A {@code tools/list_changed} arrived: relist now and report the result when
   * {@code ready}; otherwise relist after the listing that is about to run or running.
   */
  void changed(boolean ready) {
    if (inFlight != null || !ready) {
      changedMeanwhile = true;
    } else {
      relist();
    }
  }

  private void relist() {
    list().onSuccess(relisted).onFailure(err -> LOG.warn("[{}] re-listing tools failed: {}", server, err.getMessage()));
  }

  private Future<List<JsonObject>> fetch(String cursor, List<JsonObject> acc, Set<String> cursors, int page) {
    JsonObject params = cursor == null ? null : new JsonObject().put("cursor", cursor);
    return requester.apply("tools/list", params).compose(result -> {
      if (!(result.getValue("tools") instanceof JsonArray list)) {
        return Future.failedFuture(new McpException(Kind.PROTOCOL, "server '" + server + "': tools/list result has no 'tools' array"));
      }
      for (Object item : list) {
        accept(item, acc);
      }
      if (result.getValue("nextCursor") instanceof String next && !next.isEmpty()) {
        if (!cursors.add(next) || page >= MAX_PAGES) {
          return Future.failedFuture(new McpException(Kind.PROTOCOL,
            "server '" + server + "': tools/list pagination does not end (cursor repeated or over " + MAX_PAGES + " pages)"));
        }
        return fetch(next, acc, cursors, page + 1);
      }
      return Future.succeededFuture(acc);
    });
  }

  private void accept(Object item, List<JsonObject> acc) {
    if (!(item instanceof JsonObject tool) || !(tool.getValue("name") instanceof String toolName) || toolName.isEmpty()) {
      LOG.warn("[{}] skipped a tool without a name", server);
      return;
    }
    if (tool.getValue("execution") instanceof JsonObject exec && "required".equals(exec.getValue("taskSupport"))) {
      if (hiddenLogged.add(toolName)) {
        LOG.info("[{}] hiding tool '{}': it requires task-augmented calls, which Agentbus does not run", server, toolName);
      }
      return;
    }
    acc.add(tool);
  }
}
