package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.UrlRedaction;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.Collection;

/**
 * The HTTP requests of the OAuth flow (metadata, registration, token endpoint): never
 * following redirects, each with a deadline, bodies bounded, and failures turned into
 * {@link McpException}s whose text names the redacted URL and never a secret.
 */
final class AuthHttp {

  /** An answer: the status and the body as JSON (or {@code null} when it is not a JSON object). */
  record Response(int status, JsonObject json, String text) {
    boolean ok() {
      return status / 100 == 2;
    }
  }

  static final int MAX_BODY = 256 * 1024;
  private final WebClient client;
  private final long timeoutMs;

  AuthHttp(Vertx vertx, long timeoutMs) {
    this.client = WebClient.create(vertx, new WebClientOptions()
      .setName("agentbus-oauth")
      .setFollowRedirects(false)
      .setVerifyHost(true)
      .setUserAgent("agentbus-oauth"));
    this.timeoutMs = timeoutMs;
  }

  /** GET, expecting JSON. */
  Future<Response> get(String url, String who) {
    HttpRequest<Buffer> req = client.getAbs(url).timeout(timeoutMs).putHeader("Accept", "application/json");
    return handle(req.send(), "GET", url, who, null);
  }

  /** POST of a form; {@code authorization} (e.g. {@code Basic ...}) may be {@code null}. */
  Future<Response> postForm(String url, MultiMap form, String authorization, String who, Collection<String> secrets) {
    HttpRequest<Buffer> req = client.postAbs(url).timeout(timeoutMs).putHeader("Accept", "application/json");
    if (authorization != null) {
      req.putHeader("Authorization", authorization);
    }
    return handle(req.sendForm(form), "POST", url, who, secrets);
  }

  /** POST of a JSON body. */
  Future<Response> postJson(String url, JsonObject body, String who) {
    HttpRequest<Buffer> req = client.postAbs(url).timeout(timeoutMs).putHeader("Accept", "application/json");
    return handle(req.sendJsonObject(body), "POST", url, who, null);
  }

  private Future<Response> handle(Future<HttpResponse<Buffer>> f, String method, String url, String who,
                                  Collection<String> secrets) {
    return f.recover(err -> Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": " + method + " "
      + UrlRedaction.redact(url) + " failed: " + Secrets.scrub(String.valueOf(err.getMessage()), secrets))))
      .compose(resp -> {
        Buffer b = resp.body();
        if (b != null && b.length() > MAX_BODY) {
          return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": " + method + " "
            + UrlRedaction.redact(url) + " answered more than " + MAX_BODY + " bytes"));
        }
        String text = b == null ? "" : b.toString();
        JsonObject json = null;
        String t = text.trim();
        if (t.startsWith("{")) {
          try {
            json = new JsonObject(t);
          } catch (DecodeException e) {
            json = null;
          }
        }
        return Future.succeededFuture(new Response(resp.statusCode(), json, text));
      });
  }

  /** The OAuth error of a failed answer ({@code error: error_description}), scrubbed and shortened. */
  static String oauthError(Response r, Collection<String> secrets) {
    String s;
    if (r.json() != null && r.json().getValue("error") instanceof String code) {
      s = code + (r.json().getValue("error_description") instanceof String d ? ": " + d : "");
    } else {
      s = r.text();
    }
    s = Secrets.scrub(s, secrets).replaceAll("\\p{Cntrl}", " ").trim();
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }

  Future<Void> close() {
    client.close();
    return Future.succeededFuture();
  }
}
