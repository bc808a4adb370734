package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code /v1/conversations/:id/approvals}: the tool calls of a conversation's running turn that
 * wait for approval, and the answer to one. Tenant-checked like every conversation route
 * (another tenant's conversation is 404); the request reaches the turn wherever it runs.
 */
final class ApprovalRoutes {

  private static final String SERVICE = "the conversation service";
  /** Longest tool_use id accepted. */
  static final int MAX_ID_CHARS = 256;
  /** Longest reason accepted. */
  static final int MAX_REASON_CHARS = 2_000;

  private final BusRequests bus;
  private final Responses responses;

  ApprovalRoutes(BusRequests bus, Responses responses) {
    this.bus = bus;
    this.responses = responses;
  }

  /** {@code GET /v1/conversations/:id/approvals} → {@code {conversationId, approvals: [...]}}. */
  void list(RoutingContext ctx) {
    String id = ConversationRoutes.conversationId(ctx);
    JsonObject request = ConversationRoutes.withTenant(new JsonObject().put("id", id), ctx);
    bus.conversation(id, Actions.APPROVALS, request, BusRequests.SHORT_TIMEOUT_MS).onComplete(ar -> {
      if (ar.succeeded()) {
        responses.json(ctx, 200, ar.result());
      } else {
        responses.error(ctx, ApiError.fromBus(ar.cause(), SERVICE));
      }
    });
  }

  /**
   * {@code POST /v1/conversations/:id/approvals/:toolUseId {approve, reason?}} → 200
   * {@code {conversationId, toolUseId, approved}}.
   */
  void answer(RoutingContext ctx) {
    String id = ConversationRoutes.conversationId(ctx);
    String toolUseId = ctx.pathParam("toolUseId");
    if (toolUseId == null || toolUseId.isEmpty() || toolUseId.length() > MAX_ID_CHARS) {
      throw ApiError.notFound("no tool call '" + toolUseId + "' waits for approval in conversation '" + id + "'");
    }
    JsonObject body = Bodies.object(ctx);
    if (!(body.getValue("approve") instanceof Boolean approve)) {
      throw ApiError.badRequest("field 'approve' is required: true to run the tool call, false to refuse it");
    }
    String reason = Bodies.optionalString(body, "reason");
    if (reason != null && reason.length() > MAX_REASON_CHARS) {
      throw ApiError.badRequest("field 'reason' must be at most " + MAX_REASON_CHARS + " characters");
    }
    JsonObject request = new JsonObject().put("id", id).put("toolUseId", toolUseId).put("approve", approve);
    if (reason != null) {
      request.put("reason", reason);
    }
    bus.conversation(id, Actions.APPROVE, ConversationRoutes.withTenant(request, ctx), BusRequests.SHORT_TIMEOUT_MS)
      .onComplete(ar -> {
        if (ar.succeeded()) {
          responses.json(ctx, 200, ar.result());
        } else {
          responses.error(ctx, ApiError.fromBus(ar.cause(), SERVICE));
        }
      });
  }
}
