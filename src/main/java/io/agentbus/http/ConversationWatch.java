package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.vertx.core.AsyncResult;
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
 * own stream; one that falls behind on the others has its stream ended (the stream has no end of
 * its own, so nothing is buffered for it without bound). Touched only on the verticle's context.
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
    new Stream(ctx, id).start();
  }

  /** One watcher's stream. */
  private final class Stream {
    private final RoutingContext ctx;
    private final HttpServerResponse response;
    private final String id;
    private final List<JsonObject> early = new ArrayList<>();
    private MessageConsumer<JsonObject> consumer;
    private long heartbeat = -1;
    private boolean started;
    private boolean ended;

    Stream(RoutingContext ctx, String id) {
      this.ctx = ctx;
      this.response = ctx.response();
      this.id = id;
    }

    void start() {
      // cluster-wide, and in place before the waiting calls are read, so nothing falls between
      consumer = vertx.eventBus().consumer(Addresses.conversationEvents(id), m -> onEvent(m.body()));
      response.closeHandler(v -> end());
      consumer.completion()
        .compose(v -> bus.conversation(id, Actions.APPROVALS, ConversationRoutes.withTenant(new JsonObject().put("id", id), ctx),
          BusRequests.SHORT_TIMEOUT_MS))
        .onComplete(this::begin);
    }

    private void onEvent(JsonObject event) {
      if (ended || event == null) {
        return;
      }
      if (!started) {
        if (early.size() < MAX_EARLY_EVENTS) {
          early.add(event);
        }
        return;
      }
      write(event);
    }

    private void begin(AsyncResult<JsonObject> waiting) {
      if (ended) {
        return;
      }
      if (waiting.failed()) {
        end();
        responses.error(ctx, ApiError.fromBus(waiting.cause(), "the conversation service"));
        return;
      }
      started = true;
      response.setStatusCode(200).setChunked(true)
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
        .putHeader("X-Accel-Buffering", "no");
      heartbeat = vertx.setPeriodic(heartbeatMs, t -> send(": keep-alive\n\n"));
      // a comment, so the head goes out now even when nothing is waiting or happening
      send(": watching\n\n");
      for (Object approval : waiting.result().getJsonArray("approvals", new JsonArray())) {
        if (approval instanceof JsonObject a) {
          write(a.copy().put("type", "approval_required").put("conversationId", id));
        }
      }
      early.forEach(this::write);
      early.clear();
    }

    private void write(JsonObject event) {
      if (ended) {
        return;
      }
      String type = event.getString("type", "event");
      if (response.writeQueueFull()) {
        if (!DROPPABLE.contains(type)) {
          // a reader that falls behind on the events that matter is let go (it reconnects and
          // starts again from the calls waiting) rather than buffered for
          end();
          if (!response.closed() && !response.ended()) {
            response.end();
          }
        }
        return;
      }
      // encode() escapes newlines, so the JSON is always one data line
      send("event: " + type + "\ndata: " + event.encode() + "\n\n");
    }

    private void send(String frame) {
      if (!response.closed() && !response.ended()) {
        response.write(frame);
      }
    }

    private void end() {
      if (!ended) {
        ended = true;
        consumer.unregister();
        vertx.cancelTimer(heartbeat);
      }
    }
  }
}
