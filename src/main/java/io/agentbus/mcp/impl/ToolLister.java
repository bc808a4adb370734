package io.agentbus.mcp.impl;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists a server's tools across {@code nextCursor} pages and keeps the last listing.
 * A {@code tools/list_changed} that arrives while a listing runs makes it start over from
 * the first page once the page in flight is answered, so a listing never mixes pages from
 * before and after a change; callers that joined it get the fresh listing. Tools that
 * require task-augmented calls are hidden (Agentbus does not run tasks), each logged once.
 * Confined to the client's context.
 */
final class ToolLister {

  private static final Logger LOG = LoggerFactory.getLogger(ToolLister.class);
  static final int MAX_PAGES = 1000;
  /** Fresh starts of one listing before giving up on a tool list that never settles. */
  static final int MAX_RESTARTS = 10;
  /** The result of a pass that a change overtook (compared by identity). */
  private static final List<JsonObject> OVERTAKEN = Collections.unmodifiableList(new ArrayList<>());

  private final String server;
  private final BiFunction<String, JsonObject, Future<JsonObject>> requester;
  private final Handler<List<JsonObject>> relisted;
  private final Set<String> hiddenLogged = new HashSet<>();
  private List<JsonObject> tools = List.of();
  private Promise<List<JsonObject>> inFlight;
  /** Counts list_changed notifications; a pass is fresh when it ends at the count it began with. */
  private long changes;
  /** A change arrived since the last successful listing: report the next one to {@code relisted}. */
  private boolean changedSinceListed;

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
      return inFlight.future();
    }
    Promise<List<JsonObject>> p = Promise.promise();
    inFlight = p;
    pass(p, 0);
    return p.future();
  }

  private void pass(Promise<List<JsonObject>> p, int restarts) {
    long seen = changes;
    fetch(null, new ArrayList<>(), new HashSet<>(), 1, seen).onComplete(ar -> {
      if (ar.succeeded() && ar.result() == OVERTAKEN) {
        if (restarts < MAX_RESTARTS) {
          pass(p, restarts + 1);
          return;
        }
        finish(p, Future.failedFuture(new McpException(Kind.PROTOCOL, "server '" + server
          + "': the tool list kept changing while it was listed (" + (restarts + 1) + " attempts)")));
        return;
      }
      finish(p, ar.succeeded() ? Future.succeededFuture(List.copyOf(ar.result())) : Future.failedFuture(ar.cause()));
    });
  }

  private void finish(Promise<List<JsonObject>> p, Future<List<JsonObject>> outcome) {
    inFlight = null;
    boolean report = false;
    if (outcome.succeeded()) {
      tools = outcome.result();
      report = changedSinceListed;
      changedSinceListed = false;
    } else if (changedSinceListed) {
      LOG.warn("[{}] re-listing tools failed: {}", server, outcome.cause().getMessage());
    }
    if (report) {
      relisted.handle(tools);
    }
    p.handle(outcome);
  }

  /**
   * A {@code tools/list_changed} arrived. When {@code ready}, relist now (or start the
   * running listing over) and report the result; otherwise the listing about to run is
   * fresh anyway.
   */
  void changed(boolean ready) {
    changes++;
    if (!ready) {
      return;
    }
    changedSinceListed = true;
    if (inFlight == null) {
      list();
    }
  }

  private Future<List<JsonObject>> fetch(String cursor, List<JsonObject> acc, Set<String> cursors, int page, long seen) {
    JsonObject params = cursor == null ? null : new JsonObject().put("cursor", cursor);
    return requester.apply("tools/list", params).compose(result -> {
      if (changes != seen) {
        return Future.succeededFuture(OVERTAKEN);
      }
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
        return fetch(next, acc, cursors, page + 1, seen);
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
