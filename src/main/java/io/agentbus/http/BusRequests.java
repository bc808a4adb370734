package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.conversation.ConversationIds;
import io.agentbus.conversation.ConversationVerticle;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;

/** The API's only way to the rest of Agentbus: requests on the event bus. */
final class BusRequests {

  /** Timeout of short requests (create, get, delete, catalog). */
  static final long SHORT_TIMEOUT_MS = 30_000;

  private final Vertx vertx;
  private final EventBus bus;
  /** On a cluster node without conversation instances: how its requests reach other nodes'. */
  private final RemoteConversations remote;

  BusRequests(Vertx vertx) {
    this.vertx = vertx;
    this.bus = vertx.eventBus();
    this.remote = vertx.isClustered() ? new RemoteConversations(vertx) : null;
  }

  Future<JsonObject> request(String address, String action, JsonObject body, long timeoutMs) {
    DeliveryOptions delivery = new DeliveryOptions().addHeader(Actions.HEADER, action).setSendTimeout(timeoutMs);
    return bus.<JsonObject>request(address, body, delivery).map(Message::body);
  }

  /** @return the Vert.x instance the requests go through */
  Vertx vertx() {
    return vertx;
  }

  /**
   * A request to the conversation service that names no conversation ({@code create},
   * {@code list}): the instance on this event loop when there is one, else the front address,
   * or on a cluster node without conversations a conversation node it watches.
   */
  Future<JsonObject> conversationService(String action, JsonObject body, long timeoutMs) {
    String local = ConversationVerticle.localAddress(vertx);
    if (local == null && remote != null) {
      return remote.request(action, body, timeoutMs);
    }
    return request(local != null ? local : Addresses.CONVERSATION, action, body, timeoutMs);
  }

  /**
   * Asks the conversation instance on this event loop when there is one (any instance serves
   * any conversation, and this keeps the turn on the loop where its request arrived), else the
   * instance named by the id. When no instance has that address the front address answers, so
   * an unknown id gets the service's own 404 and a missing service still gets NO_HANDLERS. On a
   * cluster node without conversation instances, a conversation node it watches answers.
   */
  Future<JsonObject> conversation(String id, String action, JsonObject body, long timeoutMs) {
    String local = ConversationVerticle.localAddress(vertx);
    if (local == null && remote != null) {
      return remote.request(action, body, timeoutMs);
    }
    return request(local != null ? local : ConversationIds.address(id), action, body, timeoutMs).recover(err -> {
      if (err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
        return request(Addresses.CONVERSATION, action, body, timeoutMs);
      }
      return Future.failedFuture(err);
    });
  }
}
