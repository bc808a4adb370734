package io.agentbus.dispatch;

import io.agentbus.bus.Addresses;
import io.agentbus.catalog.CatalogEntry;
import io.agentbus.catalog.ToolCatalog;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * On a clustered bus, a call sent to a server on another node gets no answer when that node
 * dies: the bus drops what it cannot deliver, and the call would wait out its whole budget.
 * This watch fails such calls as soon as the catalog drops the server (the cluster noticed that
 * no live node serves it any more). Used on the dispatcher's context only.
 */
final class ServerWatch {

  /** Why a watched call failed: its server left the catalog while the call was running. */
  static final class ServerLeft extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ServerLeft(String server) {
      super("server '" + server + "' left the cluster", null, false, false);
    }
  }

  private final Vertx vertx;
  private final ToolCatalog catalog;
  private final Map<String, List<Promise<?>>> running = new HashMap<>();
  private MessageConsumer<JsonObject> changes;

  ServerWatch(Vertx vertx, ToolCatalog catalog) {
    this.vertx = vertx;
    this.catalog = catalog;
  }

  /** @return {@code call}, or a failure with {@link ServerLeft} once {@code server} leaves the catalog first */
  <T> Future<T> watch(String server, Future<T> call) {
    if (!vertx.isClustered() || call.isComplete()) {
      return call;
    }
    if (changes == null) {
      changes = vertx.eventBus().localConsumer(Addresses.CATALOG_CHANGED, m -> check());
    }
    Promise<T> outcome = Promise.promise();
    List<Promise<?>> calls = running.computeIfAbsent(server, k -> new ArrayList<>());
    calls.add(outcome);
    call.onComplete(ar -> {
      calls.remove(outcome);
      if (calls.isEmpty()) {
        running.remove(server, calls);
      }
      if (ar.succeeded()) {
        outcome.tryComplete(ar.result());
      } else {
        outcome.tryFail(ar.cause());
      }
    });
    return outcome.future();
  }

  private void check() {
    Set<String> present = new HashSet<>();
    for (CatalogEntry e : catalog.current().entries()) {
      present.add(e.server());
    }
    for (String server : new ArrayList<>(running.keySet())) {
      if (!present.contains(server)) {
        List<Promise<?>> calls = running.remove(server);
        calls.forEach(p -> p.tryFail(new ServerLeft(server)));
      }
    }
  }
}
