package io.agentbus.mcp.server;

import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.auth.AuthorizationCallback;
import io.agentbus.mcp.auth.OAuthManager;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * OAuth as one server verticle serves it: the {@code oauth/authorize} and
 * {@code oauth/callback} actions, and the answer to a call that cannot run before someone
 * authorizes. Such a call is not started: it fails with {@link FailureCodes#UNAUTHORIZED}, and
 * when the missing authorization is the caller's own (its tenant's; no tenant for a server
 * that nobody authenticates to) an {@code authorization_required} event with the URL goes to
 * the call's events address, so the person sees the link while the model only reads that
 * authorization is needed. The URL never enters the history, a log or an error message.
 *
 * <p>A {@code shared} server is authorized without a tenant only: one tenant's account must
 * never become everyone's identity.
 */
final class Authorizations {

  /** The event type published to the caller's events address. */
  static final String EVENT = "authorization_required";

  private final Vertx vertx;
  private final McpServerOptions options;
  private final String name;

  Authorizations(Vertx vertx, McpServerOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.name = options.getName();
  }

  /** @return whether {@code err} says a connection needs a person to authorize it */
  static boolean isRequired(Throwable err) {
    return err instanceof McpException e && e.kind() == McpException.Kind.AUTHORIZATION_REQUIRED;
  }

  /**
   * The failure of a call that cannot run until (server, {@code needed.tenant}) is authorized;
   * publishes {@value #EVENT} to the caller when the authorization is the caller's to give.
   *
   * @param needed the {@code AUTHORIZATION_REQUIRED} error's data: {@code {server, tenant, authorizationUrl}}
   */
  ReplyException required(ToolCallRequest req, JsonObject needed) {
    String tenant = needed == null ? null : needed.getString("tenant");
    boolean callersOwn = Objects.equals(tenant, req.tenant());
    String url = needed == null ? null : needed.getString("authorizationUrl");
    if (callersOwn && url != null && req.progressAddress() != null) {
      JsonObject event = req.progressFields() == null ? new JsonObject() : req.progressFields().copy();
      event.put("type", EVENT).put("server", name).put("tool", req.name()).put("url", url);
      if (tenant != null) {
        event.put("tenant", tenant);
      }
      vertx.eventBus().publish(req.progressAddress(), event, SharedJsonCodec.shared());
    }
    String who = tenant == null ? "" : " for tenant '" + tenant + "'";
    String next = callersOwn
      ? ": the user has been sent a link to authorize it (GET /v1/mcp/" + name + "/authorize gives it again); try again once"
        + " they have"
      : ": its operator must authorize it";
    return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, FailureCodes.UNAUTHORIZED, McpServerVerticle.NOT_STARTED
      + "server '" + name + "' needs OAuth authorization" + who + next);
  }

  /** {@code oauth/authorize}: {@code {tenant?, redirectUri?}} → {@code {server, tenant, url}}. */
  void authorize(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    if (!configured(msg)) {
      return;
    }
    if (!(body.getValue("tenant") == null || body.getValue("tenant") instanceof String)
      || !(body.getValue("redirectUri") == null || body.getValue("redirectUri") instanceof String)) {
      msg.fail(FailureCodes.BAD_REQUEST, "'tenant' and 'redirectUri' must be strings");
      return;
    }
    String tenant = body.getString("tenant");
    if (tenant != null && options.getScope() == McpServerOptions.Scope.SHARED) {
      msg.fail(FailureCodes.FORBIDDEN, "server '" + name + "' is shared by every tenant: only its operator authorizes it"
        + " (without a tenant), so that no tenant's account becomes everyone's");
      return;
    }
    OAuthManager.of(vertx).authorizationUrl(name, tenant, body.getString("redirectUri")).onComplete(ar -> {
      if (ar.succeeded()) {
        JsonObject reply = new JsonObject().put("server", name).put("url", ar.result());
        msg.reply(tenant == null ? reply : reply.put("tenant", tenant));
      } else {
        msg.fail(FailureCodes.UNAVAILABLE, "server '" + name + "': the authorization cannot start: " + ar.cause().getMessage());
      }
    });
  }

  /**
   * {@code oauth/callback}: the callback's query → {@code {server, tenant}} once its tokens are
   * stored; {@code authorized} is then told which tenant ({@code null}: the shared identity).
   */
  void callback(Message<JsonObject> msg, Consumer<String> authorized) {
    if (!configured(msg)) {
      return;
    }
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    MultiMap query = MultiMap.caseInsensitiveMultiMap();
    for (String field : new String[] {"code", "state", "iss", "error", "error_description"}) {
      if (body.getValue(field) instanceof String value) {
        query.add(field, value);
      }
    }
    OAuthManager.of(vertx).complete(AuthorizationCallback.of(query)).onComplete(ar -> {
      if (ar.failed()) {
        msg.fail(FailureCodes.BAD_REQUEST, "server '" + name + "': " + ar.cause().getMessage());
        return;
      }
      String tenant = ar.result().tenant();
      authorized.accept(tenant);
      JsonObject reply = new JsonObject().put("server", name);
      msg.reply(tenant == null ? reply : reply.put("tenant", tenant));
    });
  }

  private boolean configured(Message<JsonObject> msg) {
    if (options.getOauth() == null) {
      msg.fail(FailureCodes.BAD_REQUEST, "server '" + name + "' has no \"oauth\" settings: it needs no authorization");
      return false;
    }
    return true;
  }
}
