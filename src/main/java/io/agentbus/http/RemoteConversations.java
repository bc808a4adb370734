package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.cluster.ClusterNodes;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a cluster node without conversations of its own reaches them: it picks a live node with
 * the {@code conversation} role (in turn) and sends to that node's address, so it knows where
 * each request runs. When that node leaves the cluster before answering, the request fails at
 * once with 503 instead of waiting out a turn's timeout for a reply that cannot come. Used on
 * one HTTP verticle's context only.
 */
final class RemoteConversations {

  /** How long a list of conversation nodes is used before it is read again. */
  static final long REFRESH_MS = 1_000;
  /** How often the requests in flight are checked against the live members. */
  static final long CHECK_MS = 500;

  private final Vertx vertx;
  private List<JsonObject> nodes = List.of();
  /** When {@link #nodes} was read ({@link System#nanoTime()}), or {@code null}: read it at the next request. */
  private Long readAt;
  private int next;
  private final Map<Promise<JsonObject>, JsonObject> inFlight = new HashMap<>();
  private long timer = -1;

  RemoteConversations(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Sends to a conversation node; fails with 503 when there is none, or when it leaves first. */
  Future<JsonObject> request(String action, JsonObject body, long timeoutMs) {
    return conversationNodes().compose(list -> {
      if (list.isEmpty()) {
        return Future.failedFuture(new ReplyException(ReplyFailure.NO_HANDLERS, FailureCodes.UNAVAILABLE,
          "no node of the cluster runs conversations (role 'conversation'); retry later"));
      }
      JsonObject node = list.get(Math.floorMod(next++, list.size()));
      DeliveryOptions delivery = new DeliveryOptions().addHeader(Actions.HEADER, action).setSendTimeout(timeoutMs);
      Promise<JsonObject> reply = Promise.promise();
      inFlight.put(reply, node);
      watch();
      vertx.eventBus().<JsonObject>request(Addresses.conversationNode(node.getString("id")), body, delivery)
        .map(Message::body).onComplete(ar -> {
          inFlight.remove(reply);
          if (ar.succeeded()) {
            reply.tryComplete(ar.result());
          } else {
            reply.tryFail(ar.cause());
          }
        });
      return reply.future();
    });
  }

  private Future<List<JsonObject>> conversationNodes() {
    long now = System.nanoTime();
    if (readAt != null && now - readAt < REFRESH_MS * 1_000_000L) {
      return Future.succeededFuture(nodes);
    }
    return ClusterNodes.members(vertx).map(members -> {
      List<JsonObject> found = new ArrayList<>();
      for (Object m : members) {
        if (m instanceof JsonObject member && member.getValue("roles") instanceof JsonArray roles
            && roles.contains("conversation")) {
          found.add(member);
        }
      }
      nodes = List.copyOf(found);
      readAt = now;
      return nodes;
    });
  }

  private void watch() {
    if (timer < 0) {
      timer = vertx.setPeriodic(CHECK_MS, t -> failLeft());
    }
  }

  private void failLeft() {
    if (inFlight.isEmpty()) {
      vertx.cancelTimer(timer);
      timer = -1;
      return;
    }
    Set<String> live = ClusterNodes.liveNodes(vertx);
    for (Map.Entry<Promise<JsonObject>, JsonObject> e : new ArrayList<>(inFlight.entrySet())) {
      JsonObject node = e.getValue();
      if (!live.contains(node.getString("id"))) {
        inFlight.remove(e.getKey());
        readAt = null;
        e.getKey().tryFail(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, FailureCodes.UNAVAILABLE,
          "the cluster node running this request (" + node.getString("name") + ") left the cluster before it answered;"
            + " the conversation holds only the turns it committed: send the message again"));
      }
    }
  }
}
