package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code GET /v1/conversations/:id/events}: every turn event of one conversation as Server-Sent
 * Events, whoever sent the turn (a JSON client's too), until the client goes away. It starts
 * with an {@code approval_required} event for each tool call waiting for approval at that
 * moment, so a page that opens late can still answer it (such a call may also arrive live once:
 * key approvals by {@code tool_use_id}). Tenant-checked like every conversation route (the
 * waiting calls are asked for with the caller's tenant: another tenant's conversation is 404,
 * as JSON, before the stream starts). A slow reader misses the droppable events as on a turn's
 * own stream. One per request; touched only on the verticle's context.
 */
final class ConversationWatch {

  /** Events kept while the waiting calls are asked for (the stream has not started yet). */
  static final int MAX_EARLY_EVENTS = 256;
  private static final Set<String> DROPPABLE = Set.of("text_delta", "model_call", "tool_call_progress", "usage");

  private final Vertx vertx;
  private final BusRequests bus;
  private final Responses responses;
  private final long heartbeatMs;

  ConversationWatch(Vertx vertx, BusRequests bus, Responses responses, long heartbeatMs) {
    this.vertx = vertx;
    this.bus = bus;
    this.responses = responses;
    this.heartbeatMs = heartbeatMs;
  }

  void watch(RoutingContext ctx) {
    String id = ConversationRoutes.conversationId(ctx);
    HttpServerResponse response = ctx.response();
    List<JsonObject> early = new ArrayList<>();
    boolean[] started = {false};
    boolean[] ended = {false};
    long[] heartbeat = {-1};
    // cluster-wide, and in place before the waiting calls are read, so nothing falls between
    MessageConsumer<JsonObject> consumer = vertx.eventBus().consumer(Addresses.conversationEvents(id), m -> {
      if (ended[0] || m.body() == null) {
        return;
      }
      if (!started[0]) {
        if (early.size() < MAX_EARLY_EVENTS) {
          early.add(m.body());
        }
        return;
      }
      write(response, m.body());
    });
    Runnable end = () -> {
      if (!ended[0]) {
        ended[0] = true;
        consumer.unregister();
        vertx.cancelTimer(heartbeat[0]);
      }
    };
    response.closeHandler(v -> end.run());
    consumer.completion()
      .compose(v -> bus.conversation(id, Actions.APPROVALS, ConversationRoutes.withTenant(new JsonObject().put("id", id), ctx),
        BusRequests.SHORT_TIMEOUT_MS))
      .onComplete(ar -> {
        if (ended[0]) {
          return;
        }
        if (ar.failed()) {
          end.run();
          responses.error(ctx, ApiError.fromBus(ar.cause(), "the conversation service"));
          return;
        }
        started[0] = true;
        response.setStatusCode(200).setChunked(true)
          .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream; charset=utf-8")
          .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
          .putHeader("X-Accel-Buffering", "no");
        heartbeat[0] = vertx.setPeriodic(heartbeatMs, t -> send(response, ": keep-alive\n\n"));
        JsonArray waiting = ar.result().getJsonArray("approvals", new JsonArray());
        for (Object approval : waiting) {
          if (approval instanceof JsonObject a) {
            write(response, a.copy().put("type", "approval_required").put("conversationId", id));
          }
        }
        early.forEach(e -> write(response, e));
        early.clear();
      });
  }

  private static void write(HttpServerResponse response, JsonObject event) {
    String type = event.getString("type", "event");
    if (DROPPABLE.contains(type) && response.writeQueueFull()) {
      return;
    }
    // encode() escapes newlines, so the JSON is always one data line
    send(response, "event: " + type + "\ndata: " + event.encode() + "\n\n");
  }

  private static void send(HttpServerResponse response, String frame) {
    if (!response.closed() && !response.ended()) {
      response.write(frame);
    }
  }
}
