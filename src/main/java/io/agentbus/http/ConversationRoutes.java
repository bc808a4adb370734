package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.agentbus.conversation.ConversationIds;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.conversation.ConversationVerticle;
import io.agentbus.store.ConversationStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.UUID;

/**
 * {@code /v1/conversations}: create, list, send a message (JSON or SSE), get, delete. Every body is
 * checked here first, so a bad request changes nothing; the caller's tenant (from
 * {@link BearerAuth}) goes with every bus request, so other tenants' conversations are 404.
 */
final class ConversationRoutes {

  private static final String SERVICE = "the conversation service";

  private final Vertx vertx;
  private final BusRequests bus;
  private final Responses responses;
  private final Admission admission;
  private final long heartbeatMs;

  ConversationRoutes(Vertx vertx, BusRequests bus, Responses responses, Admission admission, long heartbeatMs) {
    this.vertx = vertx;
    this.bus = bus;
    this.responses = responses;
    this.admission = admission;
    this.heartbeatMs = heartbeatMs;
  }

  static JsonObject withTenant(JsonObject body, RoutingContext ctx) {
    String tenant = ctx.get(BearerAuth.TENANT);
    return tenant == null ? body : body.put("tenant", tenant);
  }

  /** @return the {@code id} path parameter, when it can name a conversation at all */
  static String conversationId(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    if (ConversationIds.shardOf(id) < 0) {
      throw ApiError.notFound("no conversation '" + id + "'");
    }
    return id;
  }

  /** {@code POST /v1/conversations {system?, tools?}} → 201 {@code {id}}. */
  void create(RoutingContext ctx) {
    JsonObject body = Bodies.object(ctx);
    String system = Bodies.optionalString(body, "system");
    JsonArray tools = Bodies.optionalStrings(body, "tools");
    JsonObject request = new JsonObject();
    if (system != null) {
      request.put("system", system);
    }
    if (tools != null) {
      request.put("tools", tools);
    }
    if (body.getValue("roots") != null) {
      request.put("roots", body.getValue("roots")); // checked by the conversation service (400 naming the root)
    }
    bus.conversationService(Actions.CREATE, withTenant(request, ctx), BusRequests.SHORT_TIMEOUT_MS)
      .onSuccess(reply -> {
        String id = reply.getString("id");
        ctx.response().putHeader(HttpHeaders.LOCATION, "/v1/conversations/" + id);
        responses.json(ctx, 201, new JsonObject().put("id", id));
      })
      .onFailure(err -> responses.error(ctx, ApiError.fromBus(err, SERVICE)));
  }

  /** {@code POST /v1/conversations/:id/messages {content}} → the turn result, or SSE. */
  void send(RoutingContext ctx) {
    String id = conversationId(ctx);
    Object content = Bodies.content(Bodies.object(ctx));
    String key = Admission.key(ctx.get(BearerAuth.TENANT), id);
    admission.admit(key, id);
    JsonObject request = withTenant(new JsonObject().put("id", id).put("content", content), ctx);
    if (wantsEvents(ctx)) {
      String requestId = UUID.randomUUID().toString();
      request.put("requestId", requestId);
      TurnStream stream = new TurnStream(vertx, ctx, responses, id, requestId, heartbeatMs);
      stream.subscribe()
        .compose(v -> bus.conversation(id, Actions.SEND, request, ConversationOptions.SEND_TIMEOUT_MS))
        .onComplete(ar -> {
          admission.release(key);
          stream.onReply(ar);
        });
      return;
    }
    // a JSON caller sees the answer only: nobody watches text deltas
    request.put("stream", false);
    bus.conversation(id, Actions.SEND, request, ConversationOptions.SEND_TIMEOUT_MS).onComplete(ar -> {
      admission.release(key);
      if (ar.succeeded()) {
        responses.json(ctx, 200, ar.result());
      } else {
        responses.error(ctx, ApiError.fromBus(ar.cause(), SERVICE));
      }
    });
  }

  /**
   * {@code POST /v1/conversations/:id/elicitations/:elicitationId {action, content?}} → 200
   * {@code {elicitationId, action, content?}}; an answer that does not match the requested schema
   * is 400 with {@code error.violations}, and the elicitation stays open.
   */
  void answer(RoutingContext ctx) {
    String id = conversationId(ctx);
    JsonObject body = Bodies.object(ctx);
    Object action = body.getValue("action");
    if (!"accept".equals(action) && !"decline".equals(action) && !"cancel".equals(action)) {
      throw ApiError.badRequest("field 'action' must be \"accept\", \"decline\" or \"cancel\"");
    }
    Object content = body.getValue("content");
    if (content != null && !(content instanceof JsonObject)) {
      throw ApiError.badRequest("field 'content' must be an object (the form's fields)");
    }
    JsonObject request = withTenant(new JsonObject().put("id", id).put("elicitationId", ctx.pathParam("elicitationId"))
      .put("action", action), ctx);
    if (content != null) {
      request.put("content", content);
    }
    bus.conversation(id, Actions.ANSWER, request, BusRequests.SHORT_TIMEOUT_MS).onComplete(ar -> {
      if (ar.succeeded()) {
        responses.json(ctx, 200, ar.result());
        return;
      }
      ApiError e = ApiError.fromBus(ar.cause(), SERVICE);
      String message = e.getMessage();
      int at = message == null ? -1 : message.indexOf("\n- ");
      if (e.status() == 400 && at >= 0) {
        JsonArray violations = new JsonArray();
        for (String v : message.substring(at + 3).split("\n- ")) {
          violations.add(v);
        }
        responses.json(ctx, 400, new JsonObject().put("error", e.toJson().put("message", message.substring(0, at))
          .put("violations", violations)));
      } else {
        responses.error(ctx, e);
      }
    });
  }

  /** {@code GET /v1/conversations/:id/elicitations} → {@code {elicitations: [input_required events]}}: the open ones. */
  void elicitations(RoutingContext ctx) {
    String id = conversationId(ctx);
    reply(ctx, bus.conversation(id, Actions.ELICITATIONS, withTenant(new JsonObject().put("id", id), ctx), BusRequests.SHORT_TIMEOUT_MS), 200);
  }

  private static boolean wantsEvents(RoutingContext ctx) {
    String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
    return accept != null && accept.contains("text/event-stream");
  }

  /**
   * {@code GET /v1/conversations?limit=&after=} → the caller tenant's conversations, newest
   * first: {@code {conversations: [{id, title, createdAt, updatedAt, usage, turns}], next?}}.
   */
  void list(RoutingContext ctx) {
    JsonObject request = new JsonObject();
    String limit = ctx.request().getParam("limit");
    if (limit != null) {
      int n;
      try {
        n = Integer.parseInt(limit);
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 1 || n > ConversationStore.MAX_LIST_LIMIT) {
        throw ApiError.badRequest("query parameter 'limit' must be an integer from 1 to " + ConversationStore.MAX_LIST_LIMIT
          + " (default " + ConversationVerticle.DEFAULT_LIST_LIMIT + ")");
      }
      request.put("limit", n);
    }
    String after = ctx.request().getParam("after");
    if (after != null) {
      request.put("after", after);
    }
    reply(ctx, bus.conversationService(Actions.LIST, withTenant(request, ctx), BusRequests.SHORT_TIMEOUT_MS), 200);
  }

  /** {@code GET /v1/conversations/:id} → history, usage, turns. */
  void get(RoutingContext ctx) {
    String id = conversationId(ctx);
    reply(ctx, bus.conversation(id, Actions.GET, withTenant(new JsonObject().put("id", id), ctx), BusRequests.SHORT_TIMEOUT_MS), 200);
  }

  /** {@code DELETE /v1/conversations/:id} → 204. */
  void delete(RoutingContext ctx) {
    String id = conversationId(ctx);
    reply(ctx, bus.conversation(id, Actions.DELETE, withTenant(new JsonObject().put("id", id), ctx), BusRequests.SHORT_TIMEOUT_MS), 204);
  }

  private void reply(RoutingContext ctx, Future<JsonObject> answer, int status) {
    answer.onComplete(ar -> {
      if (ar.failed()) {
        responses.error(ctx, ApiError.fromBus(ar.cause(), SERVICE));
      } else if (status == 204) {
        responses.noContent(ctx);
      } else {
        responses.json(ctx, status, ar.result());
      }
    });
  }
}
