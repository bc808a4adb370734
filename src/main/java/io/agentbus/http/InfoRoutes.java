package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.model.Provider;
import io.vertx.core.Future;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;

/** {@code GET /v1/tools}, {@code GET /health} and {@code GET /metrics}. */
final class InfoRoutes {

  /** How long /health waits for each server's status. */
  static final long STATUS_TIMEOUT_MS = 2_000;

  private final BusRequests bus;
  private final Responses responses;
  private final AgentbusMetrics metrics;
  private final List<String> servers;
  private final Admission admission;

  InfoRoutes(BusRequests bus, Responses responses, AgentbusMetrics metrics, List<String> servers, Admission admission) {
    this.bus = bus;
    this.responses = responses;
    this.metrics = metrics;
    this.servers = List.copyOf(servers);
    this.admission = admission;
  }

  /** {@code GET /v1/tools[?provider=anthropic|openai]} → {@code {version, tools}}. */
  void tools(RoutingContext ctx) {
    String provider = ctx.queryParams().get("provider");
    if (provider != null && Provider.find(provider) == null) {
      throw ApiError.badRequest("query parameter 'provider' must be " + Provider.choices("'"));
    }
    JsonObject body = provider == null ? new JsonObject() : new JsonObject().put("provider", provider);
    bus.request(Addresses.CATALOG, Actions.CATALOG_GET, body, BusRequests.SHORT_TIMEOUT_MS)
      .onSuccess(snapshot -> responses.json(ctx, 200, snapshot))
      .onFailure(err -> responses.error(ctx, ApiError.fromBus(err, "the tool catalog")));
  }

  /**
   * {@code GET /health} → {@code {status: UP|DEGRADED|DRAINING, notReady: [name...], servers:
   * {name: {status, ready, restarts, toolCount, detail?, attempt?}}}}. It says whether this
   * instance serves: 200 while it does, even with MCP servers not READY (DEGRADED: their tools
   * are missing from the catalog until they are, and they keep being retried), and 503 only
   * while it drains, so a load balancer does not take every instance out for one server.
   */
  void health(RoutingContext ctx) {
    List<Future<JsonObject>> statuses = new ArrayList<>();
    for (String server : servers) {
      statuses.add(bus.request(Addresses.mcp(server), Actions.STATUS, new JsonObject(), STATUS_TIMEOUT_MS)
        .otherwise(err -> unreachable(server, err)));
    }
    Future.join(statuses).onComplete(done -> {
      JsonObject byServer = new JsonObject();
      JsonArray notReady = new JsonArray();
      for (int i = 0; i < servers.size(); i++) {
        JsonObject s = statuses.get(i).result();
        boolean ready = "READY".equals(s.getString("status"));
        JsonObject brief = new JsonObject().put("status", s.getString("status", "UNKNOWN")).put("ready", ready)
          .put("restarts", s.getValue("restarts")).put("toolCount", s.getValue("toolCount"));
        if (s.getString("detail") != null) {
          brief.put("detail", s.getString("detail"));
        }
        if (s.getValue("attempt") instanceof JsonObject attempt) {
          brief.put("attempt", attempt);
        }
        byServer.put(servers.get(i), brief);
        if (!ready) {
          notReady.add(servers.get(i));
        }
      }
      String overall = admission.draining() ? "DRAINING" : notReady.isEmpty() ? "UP" : "DEGRADED";
      int status = "DRAINING".equals(overall) ? 503 : 200;
      responses.json(ctx, status, new JsonObject().put("status", overall).put("notReady", notReady).put("servers", byServer));
    });
  }

  private static JsonObject unreachable(String server, Throwable err) {
    String why = err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS
      ? "no verticle serves " + Addresses.mcp(server)
      : "no status: " + err.getMessage();
    return new JsonObject().put("server", server).put("status", "DOWN").put("detail", why);
  }

  /** {@code GET /metrics} → Prometheus text. */
  void metrics(RoutingContext ctx) {
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, AgentbusMetrics.CONTENT_TYPE).end(metrics.scrape());
  }
}
