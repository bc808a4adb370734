package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.cluster.ClusterNodes;
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
import java.util.Set;
import java.util.TreeSet;

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
   * {name: {status, ready, restarts, toolCount, detail?, attempt?, scope?, connections?}}, cluster?: {name, node, members:
   * [{id, name, roles, servers, self}]}}}; {@code cluster} only on a clustered node, whose
   * {@code servers} are those of every member. It says whether this
   * instance serves: 200 while it does, even with MCP servers not READY (DEGRADED: their tools
   * are missing from the catalog until they are, and they keep being retried), and 503 only
   * while it drains, so a load balancer does not take every instance out for one server.
   */
  void health(RoutingContext ctx) {
    if (!bus.vertx().isClustered()) {
      health(ctx, servers, null);
      return;
    }
    ClusterNodes.members(bus.vertx()).onComplete(ar -> {
      JsonObject self = ClusterNodes.self(bus.vertx());
      JsonObject cluster = new JsonObject().put("name", self == null ? null : self.getString("cluster")).put("node", self);
      Set<String> everywhere = new TreeSet<>(servers);
      if (ar.succeeded()) {
        cluster.put("members", ar.result());
        ar.result().forEach(m -> {
          if (m instanceof JsonObject member && member.getValue("servers") instanceof JsonArray names) {
            names.forEach(n -> everywhere.add(String.valueOf(n)));
          }
        });
      } else {
        cluster.put("error", "cannot read the members: " + ar.cause().getMessage());
      }
      health(ctx, List.copyOf(everywhere), cluster);
    });
  }

  /**
   * @param servers the MCP servers to report: this node's, or in a cluster every node's (a
   *     status request reaches one of the nodes that run the server)
   * @param cluster the {@code cluster} object ({@code node}, {@code members}), or {@code null}
   */
  private void health(RoutingContext ctx, List<String> servers, JsonObject cluster) {
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
        if (s.getValue("scoped") instanceof JsonObject scoped) {
          brief.put("scope", scoped.getValue("scope")).put("connections", scoped.getValue("connections"));
        }
        byServer.put(servers.get(i), brief);
        if (!ready) {
          notReady.add(servers.get(i));
        }
      }
      String overall = admission.draining() ? "DRAINING" : notReady.isEmpty() ? "UP" : "DEGRADED";
      int status = "DRAINING".equals(overall) ? 503 : 200;
      JsonObject health = new JsonObject().put("status", overall).put("notReady", notReady).put("servers", byServer);
      if (cluster != null) {
        health.put("cluster", cluster);
      }
      responses.json(ctx, status, health);
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
