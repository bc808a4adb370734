package io.agentbus.http;

import io.agentbus.bus.Addresses;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one turn as Server-Sent Events: subscribe to the conversation's events before the
 * turn is sent ({@link #subscribe()}), then forward each event of this request's turn as
 * {@code event: <type>} with the event JSON as {@code data}, and end after {@code done}.
 *
 * <p>Only events that carry this request's {@code requestId} are ours: another caller's turn
 * on the same conversation (another tenant's, whose send is refused with 404 only after its
 * subscription is in place) never reaches this stream. The conversation service emits the
 * first event of a turn only after it checked the caller's tenant.
 *
 * <p>The response head is written only when the turn's {@code turn_started} arrives, so a
 * turn refused up front (404, 409, 400...) still gets a plain JSON error with its status. A
 * failure after that is sent as an {@code error} event. When the client goes away the turn
 * keeps running; only the writing stops. A client that reads too slowly misses
 * {@code text_delta}, {@code model_call}, {@code tool_call_progress} and {@code usage} events
 * (never the others): the
 * {@code done} event carries the whole answer, so memory stays bounded. Touched only on the
 * verticle's context.
 */
final class TurnStream {

  private static final Logger LOG = LoggerFactory.getLogger(TurnStream.class);
  /** Event types forwarded to the client. */
  static final Set<String> FORWARDED = Set.of("turn_started", "text_delta", "model_call", "tool_call_started",
    "tool_call_progress", "tool_call_finished", "approval_required", "approval_resolved", "authorization_required", "usage",
    "done", "input_required", "input_resolved");
  private static final Set<String> DROPPABLE = Set.of("text_delta", "model_call", "tool_call_progress", "usage");

  private final Vertx vertx;
  private final RoutingContext ctx;
  private final Responses responses;
  private final String conversationId;
  private final String requestId;
  private final long heartbeatMs;
  private MessageConsumer<JsonObject> consumer;
  private long heartbeat = -1;
  private boolean started;
  private boolean finished;
  private int dropped;
  private SseFrames frames;

  TurnStream(Vertx vertx, RoutingContext ctx, Responses responses, String conversationId, String requestId,
             long heartbeatMs) {
    this.vertx = vertx;
    this.ctx = ctx;
    this.responses = responses;
    this.conversationId = conversationId;
    this.requestId = requestId;
    this.heartbeatMs = heartbeatMs;
  }

  /** Subscribes to the conversation's events; completes once the subscription is in place. */
  Future<Void> subscribe() {
    // cluster-wide: the turn may run on another node
    consumer = vertx.eventBus().consumer(Addresses.conversationEvents(conversationId), m -> onEvent(m.body()));
    ctx.response().closeHandler(v -> {
      if (!finished) {
        LOG.debug("[{}] SSE client went away; the turn goes on", conversationId);
        finish();
      }
    });
    return consumer.completion();
  }

  private void onEvent(JsonObject event) {
    if (finished || event == null || !requestId.equals(event.getValue("requestId"))) {
      return; // another caller's turn
    }
    String type = event.getString("type");
    if (!started) {
      begin();
    }
    if (FORWARDED.contains(type)) {
      write(type, event);
    }
    if ("done".equals(type)) {
      finish();
    }
  }

  /**
   * The turn's reply arrived (after its events, normally). Only now is the subscription
   * dropped: events of this turn may still be in flight to it until the turn has ended.
   */
  void onReply(AsyncResult<JsonObject> reply) {
    if (consumer != null) {
      consumer.unregister();
    }
    if (finished) {
      return;
    }
    if (reply.succeeded()) {
      if (!started) {
        begin();
      }
      write("done", new JsonObject().put("type", "done").put("conversationId", conversationId).put("requestId", requestId)
        .put("result", reply.result()));
      finish();
      return;
    }
    ApiError error = ApiError.fromBus(reply.cause(), "the conversation service");
    if (!started) {
      finish();
      responses.error(ctx, error);
      return;
    }
    write("error", error.toJson().put("type", "error").put("status", error.status()));
    finish();
  }

  private void begin() {
    started = true;
    HttpServerResponse r = ctx.response();
    if (r.closed() || r.ended()) {
      return;
    }
    r.setStatusCode(200).setChunked(true)
      .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream; charset=utf-8")
      .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
      .putHeader("X-Accel-Buffering", "no");
    frames = new SseFrames(vertx.getOrCreateContext(), r);
    heartbeat = vertx.setPeriodic(heartbeatMs, t -> send(": keep-alive\n\n"));
  }

  private void write(String type, JsonObject data) {
    if (DROPPABLE.contains(type) && frames != null && frames.writeQueueFull()) {
      dropped++;
      return;
    }
    // encode() escapes newlines, so the JSON is always one data line
    send("event: " + type + "\ndata: " + data.encode() + "\n\n");
  }

  private void send(String frame) {
    if (frames != null) {
      frames.send(frame);
    }
  }

  private void finish() {
    finished = true;
    vertx.cancelTimer(heartbeat);
    if (dropped > 0) {
      LOG.debug("[{}] slow SSE client: {} events dropped", conversationId, dropped);
    }
    if (frames != null) {
      frames.end();
    }
  }
}
