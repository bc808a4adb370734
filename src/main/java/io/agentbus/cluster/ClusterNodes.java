package io.agentbus.cluster;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.spi.cluster.ClusterManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The cluster as Agentbus sees it: this node's id, the live members, and what each one runs
 * (its name, roles and MCP servers, announced in a cluster-wide map when it starts). Works on
 * a plain Vert.x too: one node, {@link #LOCAL}.
 */
public final class ClusterNodes {

  /** The node id of a Vert.x that is not clustered. */
  public static final String LOCAL = "local";
  /** Cluster-wide map of announced nodes: node id → {@code {id, name, roles, servers}}. */
  static final String NODES_MAP = "agentbus.nodes";
  /** Local map holding this node's announcement under {@link #SELF}. */
  private static final String SELF_MAP = "agentbus.node.self";
  private static final String SELF = "self";

  private ClusterNodes() {
  }

  /**
   * Starts a clustered Vert.x that joins the cluster {@code cluster} describes (Hazelcast is
   * loaded only here).
   */
  public static Future<Vertx> startVertx(VertxOptions options, ClusterOptions cluster) {
    return HazelcastCluster.start(options, cluster);
  }

  private static ClusterManager manager(Vertx vertx) {
    return vertx.isClustered() && vertx instanceof VertxInternal vi ? vi.clusterManager() : null;
  }

  /** @return this node's cluster id, or {@link #LOCAL} */
  public static String nodeId(Vertx vertx) {
    ClusterManager m = manager(vertx);
    return m == null ? LOCAL : m.getNodeId();
  }

  /** @return the ids of the members alive now (this one only, when not clustered) */
  public static Set<String> liveNodes(Vertx vertx) {
    ClusterManager m = manager(vertx);
    return m == null ? Set.of(LOCAL) : new HashSet<>(m.getNodes());
  }

  /**
   * Tells the cluster what this node runs; {@link #members} reads it back.
   *
   * @param cluster the cluster's name, or {@code null} when not clustered
   * @param name the node's name ({@code /health}, the metrics' {@code node} label)
   * @param roles what it runs
   * @param servers the MCP servers it runs
   */
  public static Future<Void> announce(Vertx vertx, String cluster, String name, List<String> roles, List<String> servers) {
    JsonObject info = new JsonObject().put("id", nodeId(vertx)).put("cluster", cluster).put("name", name)
      .put("roles", new JsonArray(new ArrayList<>(roles)))
      .put("servers", new JsonArray(new ArrayList<>(servers)));
    vertx.sharedData().<String, JsonObject>getLocalMap(SELF_MAP).put(SELF, info);
    if (!vertx.isClustered()) {
      return Future.succeededFuture();
    }
    return vertx.sharedData().<String, JsonObject>getAsyncMap(NODES_MAP).compose(map -> map.put(nodeId(vertx), info));
  }

  /** @return this node's announcement, or {@code null} before {@link #announce} */
  public static JsonObject self(Vertx vertx) {
    JsonObject info = vertx.sharedData().<String, JsonObject>getLocalMap(SELF_MAP).get(SELF);
    return info == null ? null : info.copy();
  }

  /** @return this node's name, or {@code null} before {@link #announce} */
  public static String selfName(Vertx vertx) {
    JsonObject self = self(vertx);
    return self == null ? null : self.getString("name");
  }

  /**
   * @return the live members' announcements, this one first, each with {@code self}; members
   *     that left are dropped from the map on the way
   */
  public static Future<JsonArray> members(Vertx vertx) {
    JsonObject self = self(vertx);
    if (!vertx.isClustered()) {
      return Future.succeededFuture(self == null ? new JsonArray() : new JsonArray().add(self.put("self", true)));
    }
    Set<String> live = liveNodes(vertx);
    String me = nodeId(vertx);
    return vertx.sharedData().<String, JsonObject>getAsyncMap(NODES_MAP).compose(map -> map.entries().map(entries -> {
      JsonArray out = new JsonArray();
      List<JsonObject> others = new ArrayList<>();
      Set<String> announced = new HashSet<>();
      entries.forEach((id, info) -> {
        if (!live.contains(id)) {
          map.remove(id);
          return;
        }
        announced.add(id);
        if (id.equals(me)) {
          out.add(info.copy().put("self", true));
        } else {
          others.add(info.copy().put("self", false));
        }
      });
      others.sort((a, b) -> String.valueOf(a.getString("name")).compareTo(String.valueOf(b.getString("name"))));
      others.forEach(out::add);
      live.stream().filter(id -> !announced.contains(id)).sorted()
        .forEach(id -> out.add(new JsonObject().put("id", id).put("self", id.equals(me)).put("starting", true)));
      return out;
    }));
  }
}
