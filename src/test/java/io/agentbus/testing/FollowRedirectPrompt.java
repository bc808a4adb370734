package io.agentbus.testing;

import io.agentbus.mcp.auth.AuthorizationCallback;
import io.agentbus.mcp.auth.AuthorizationPrompt;
import io.agentbus.mcp.auth.AuthorizationRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

/**
 * The "person" of OAuth tests (the conformance suite's and ours), whose authorization server
 * approves at once: GETs the authorization URL without following the redirect and reads
 * the callback ({@code code}, {@code state}, {@code iss}) from its {@code Location}.
 */
public final class FollowRedirectPrompt implements AuthorizationPrompt {

  private final WebClient client;

  /** A prompt with its own client on {@code vertx}. */
  public FollowRedirectPrompt(Vertx vertx) {
    this.client = WebClient.create(vertx, new WebClientOptions().setFollowRedirects(false));
  }

  @Override
  public Future<AuthorizationCallback> authorize(AuthorizationRequest request) {
    return client.getAbs(request.authorizationUrl()).timeout(10_000).send().compose(resp -> {
      String location = resp.getHeader("Location");
      if (resp.statusCode() / 100 != 3 || location == null) {
        return Future.failedFuture("the authorization endpoint answered HTTP " + resp.statusCode() + " without a redirect");
      }
      return Future.succeededFuture(AuthorizationCallback.fromRedirect(location));
    });
  }
}
