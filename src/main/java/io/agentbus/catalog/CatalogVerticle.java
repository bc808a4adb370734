package io.agentbus.catalog;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.cluster.ClusterNodes;
import io.agentbus.model.Provider;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the {@link ToolCatalog}: lists the tools of every configured MCP server verticle at
 * start ({@code tools/list} on {@code agentbus.mcp.<server>}), then rebuilds on each
 * {@code tools-changed} event and drops a server's tools when it reports {@code STOPPED}.
 * Serves {@code get} on {@link Addresses#CATALOG} and publishes
 * {@link Addresses#CATALOG_CHANGED} after each rebuild. Deploy one instance.
 *
 * <p>Config: {@code {servers: ["name", ...], listTimeoutMs?: 30000}}, or pass them to the
 * constructor. Start completes once every listed server answered or failed (a server that
 * is not up yet joins the catalog with its first tools-changed event).
 *
 * <p>On a clustered bus the catalog is cluster-wide: the events come from every node's servers
 * (each names its node), a catalog that starts asks them all to repeat their state ({@link
 * Addresses#CATALOG_SYNC}), and a server's tools leave once no live node serves it (a node
 * that left the cluster is noticed within {@link #MEMBERSHIP_CHECK_MS} of the cluster manager
 * dropping it).
 *
 * <p>A server may flood {@code tools/list_changed}: an event that repeats a server's current
 * tools changes nothing, and rebuilds are at most one per {@link #MIN_REBUILD_INTERVAL_MS}
 * (the first at once, later ones coalesced into one at the end of the interval).
 */
public class CatalogVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(CatalogVerticle.class);
  /** Default time allowed for the initial {@code tools/list} of one server. */
  public static final long DEFAULT_LIST_TIMEOUT_MS = 30_000;
  /** Rebuilds are at least this far apart; changes within it are coalesced. */
  public static final long MIN_REBUILD_INTERVAL_MS = 100;
  /** How often a clustered catalog compares the servers' nodes with the live members. */
  public static final long MEMBERSHIP_CHECK_MS = 1_000;

  private final ToolCatalog catalog;
  private List<String> servers;
  private long listTimeoutMs = DEFAULT_LIST_TIMEOUT_MS;
  private final Map<String, List<JsonObject>> tools = new LinkedHashMap<>();
  /** Each server's approval policies, as its verticle publishes them (absent: none configured). */
  private final Map<String, JsonObject> approvals = new HashMap<>();
  /** The nodes each server runs on (its tools stay while one of them is live and not STOPPED). */
  private final Map<String, Set<String>> nodes = new HashMap<>();
  private String localNode;
  /** Bumped on every event for a server, so a slower tools/list reply cannot undo it. */
  private final Map<String, Long> generation = new HashMap<>();
  private long lastRebuildNanos;
  private long rebuildTimer = -1;
  private final Set<String> pendingReasons = new LinkedHashSet<>();

  /** Servers and timeout come from {@code config()}; the catalog is {@link ToolCatalog#shared}. */
  public CatalogVerticle() {
    this(null, null);
  }

  /**
   * @param catalog where snapshots are published ({@code null}: {@link ToolCatalog#shared})
   * @param servers the MCP server names to list at start ({@code null}: from config)
   */
  public CatalogVerticle(ToolCatalog catalog, List<String> servers) {
    this.catalog = catalog;
    this.servers = servers == null ? null : List.copyOf(servers);
  }

  private ToolCatalog catalog() {
    return catalog != null ? catalog : ToolCatalog.shared(vertx);
  }

  @Override
  public Future<?> start() {
    if (servers == null) {
      JsonArray configured = config().getJsonArray("servers", new JsonArray());
      List<String> names = new ArrayList<>();
      configured.forEach(s -> names.add(String.valueOf(s)));
      servers = List.copyOf(names);
    }
    listTimeoutMs = config().getLong("listTimeoutMs", DEFAULT_LIST_TIMEOUT_MS);
    localNode = ClusterNodes.nodeId(vertx);
    // cluster-wide: every node's servers report here; the catalog itself answers only its own node
    MessageConsumer<JsonObject> changed = vertx.eventBus().consumer(Addresses.MCP_TOOLS_CHANGED_ALL, this::onToolsChanged);
    MessageConsumer<JsonObject> status = vertx.eventBus().consumer(Addresses.MCP_STATUS_ALL, this::onStatus);
    MessageConsumer<JsonObject> api = vertx.eventBus().localConsumer(Addresses.CATALOG, this::onRequest);
    return Future.all(changed.completion(), status.completion(), api.completion())
      .compose(v -> {
        if (vertx.isClustered()) {
          vertx.eventBus().publish(Addresses.CATALOG_SYNC, new JsonObject().put("node", localNode));
          vertx.setPeriodic(MEMBERSHIP_CHECK_MS, t -> dropLeftNodes());
        }
        List<Future<Void>> lists = new ArrayList<>();
        servers.forEach(s -> lists.add(listInitial(s)));
        return Future.join(lists);
      })
      .map(v -> {
        rebuild("start");
        return null;
      });
  }

  private Future<Void> listInitial(String server) {
    long gen = generation.getOrDefault(server, 0L);
    DeliveryOptions options = new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_LIST).setSendTimeout(listTimeoutMs);
    return vertx.eventBus().<JsonObject>request(Addresses.mcp(server), new JsonObject(), options)
      .map(reply -> {
        if (generation.getOrDefault(server, 0L) == gen) {
          tools.put(server, toolList(reply.body().getJsonArray("tools")));
          putApproval(server, reply.body());
          nodes.computeIfAbsent(server, k -> new HashSet<>()).add(reply.body().getString("node", localNode));
        }
        return (Void) null;
      })
      .recover(err -> {
        log.info("catalog: server '{}' did not list its tools yet ({}); it joins on its next tools-changed event", server, err.getMessage());
        return Future.succeededFuture();
      });
  }

  private static List<JsonObject> toolList(JsonArray array) {
    List<JsonObject> out = new ArrayList<>();
    if (array != null) {
      array.forEach(t -> {
        if (t instanceof JsonObject o) {
          out.add(o);
        }
      });
    }
    return out;
  }

  private void onToolsChanged(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    String server = body == null ? null : body.getString("server");
    if (server == null) {
      log.warn("catalog: tools-changed event without a server ignored");
      return;
    }
    generation.merge(server, 1L, Long::sum);
    nodes.computeIfAbsent(server, k -> new HashSet<>()).add(body.getString("node", localNode));
    List<JsonObject> list = toolList(body.getJsonArray("tools"));
    boolean approvalChanged = putApproval(server, body);
    if (list.equals(tools.get(server)) && !approvalChanged) {
      return;
    }
    tools.put(server, list);
    rebuildSoon("tools of '" + server + "' changed");
  }

  /** @return whether the server's approval policies changed */
  private boolean putApproval(String server, JsonObject body) {
    JsonObject approval = body.getValue("approval") instanceof JsonObject a ? a : null;
    JsonObject before = approval == null ? approvals.remove(server) : approvals.put(server, approval);
    return !Objects.equals(before, approval);
  }

  private void onStatus(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    if (body != null && "STOPPED".equals(body.getString("status")) && tools.containsKey(body.getString("server"))) {
      String server = body.getString("server");
      Set<String> serving = nodes.get(server);
      if (serving != null) {
        serving.remove(body.getString("node", localNode));
        if (!serving.isEmpty()) {
          return;
        }
      }
      drop(server, "server '" + server + "' stopped");
    }
  }

  private void drop(String server, String why) {
    generation.merge(server, 1L, Long::sum);
    tools.remove(server);
    approvals.remove(server);
    nodes.remove(server);
    rebuildSoon(why);
  }

  /** Forgets the nodes that left the cluster; a server none of the live ones serves loses its tools. */
  private void dropLeftNodes() {
    Set<String> live = ClusterNodes.liveNodes(vertx);
    for (String server : new ArrayList<>(nodes.keySet())) {
      Set<String> serving = nodes.get(server);
      if (serving.removeIf(n -> !live.contains(n)) && serving.isEmpty() && tools.containsKey(server)) {
        drop(server, "the node serving '" + server + "' left the cluster");
      }
    }
  }

  private void rebuildSoon(String why) {
    pendingReasons.add(why);
    if (rebuildTimer >= 0) {
      return;
    }
    long waitMs = MIN_REBUILD_INTERVAL_MS - (System.nanoTime() - lastRebuildNanos) / 1_000_000;
    if (lastRebuildNanos == 0 || waitMs <= 0) {
      rebuildPending();
    } else {
      rebuildTimer = vertx.setTimer(waitMs, t -> {
        rebuildTimer = -1;
        rebuildPending();
      });
    }
  }

  private void rebuildPending() {
    String why = String.join(", ", pendingReasons);
    pendingReasons.clear();
    rebuild(why);
  }

  private void rebuild(String why) {
    lastRebuildNanos = System.nanoTime();
    ToolCatalog cat = catalog();
    CatalogSnapshot previous = cat.current();
    long start = System.nanoTime();
    // Compiling schemas runs here, on the event loop: unchanged tools reuse their compiled
    // entries, so only new or changed definitions cost anything (milliseconds while cold).
    CatalogSnapshot next = CatalogSnapshot.build(previous.version() + 1, tools, approvals, previous);
    cat.publish(next);
    log.info("catalog: version {} with {} tools ({}), built in {} us", next.version(), next.size(), why,
      (System.nanoTime() - start) / 1_000);
    JsonArray names = new JsonArray();
    next.entries().forEach(e -> names.add(e.name()));
    vertx.eventBus().publish(Addresses.CATALOG_CHANGED, new JsonObject().put("version", next.version()).put("tools", names));
  }

  private void onRequest(Message<JsonObject> msg) {
    String action = msg.headers().get(Actions.HEADER);
    if (!Actions.CATALOG_GET.equals(action)) {
      msg.fail(FailureCodes.NOT_FOUND, "unknown action '" + action + "' on " + Addresses.CATALOG);
      return;
    }
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    String provider = body.getValue("provider") instanceof String p ? p : null;
    if (provider != null && Provider.find(provider) == null) {
      msg.fail(FailureCodes.BAD_REQUEST, "provider must be " + Provider.choices("\"") + " (or absent)");
      return;
    }
    CatalogSnapshot snapshot;
    if (body.getValue("version") instanceof Number v) {
      snapshot = catalog().version(v.longValue());
      if (snapshot == null) {
        msg.fail(FailureCodes.NOT_FOUND, "catalog version " + v + " is no longer retained");
        return;
      }
    } else {
      snapshot = catalog().current();
    }
    msg.reply(snapshot.toJson(provider));
  }
}
