package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.UrlRedaction;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * The HTTP requests of the OAuth flow (metadata, registration, token endpoint): never
 * following redirects, each within one deadline, bodies bounded while they are read, and
 * failures turned into {@link McpException}s whose text names the redacted URL and never a
 * secret.
 */
final class AuthHttp {

  /** An answer: the status and the body as JSON (or {@code null} when it is not a JSON object). */
  record Response(int status, JsonObject json, String text) {
    boolean ok() {
      return status / 100 == 2;
    }
  }

  static final int MAX_BODY = 256 * 1024;
  private final Vertx vertx;
  private final HttpClientAgent client;
  private final long timeoutMs;

  AuthHttp(Vertx vertx, long timeoutMs) {
    this.vertx = vertx;
    this.client = vertx.createHttpClient(new HttpClientOptions()
      .setName("agentbus-oauth")
      .setVerifyHost(true)
      .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs)));
    this.timeoutMs = timeoutMs;
  }

  /** GET, expecting JSON. */
  Future<Response> get(String url, String who) {
    return send(HttpMethod.GET, url, null, null, null, who, null);
  }

  /** POST of a form; {@code authorization} (e.g. {@code Basic ...}) may be {@code null}. */
  Future<Response> postForm(String url, MultiMap form, String authorization, String who, Collection<String> secrets) {
    StringBuilder b = new StringBuilder();
    form.forEach((k, v) -> b.append(b.length() == 0 ? "" : "&").append(enc(k)).append('=').append(enc(v)));
    return send(HttpMethod.POST, url, "application/x-www-form-urlencoded", Buffer.buffer(b.toString()), authorization, who,
      secrets);
  }

  /** POST of a JSON body. */
  Future<Response> postJson(String url, JsonObject body, String who) {
    return send(HttpMethod.POST, url, "application/json", body.toBuffer(), null, who, null);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private Future<Response> send(HttpMethod method, String url, String contentType, Buffer body, String authorization,
                                String who, Collection<String> secrets) {
    RequestOptions ro = new RequestOptions().setMethod(method).setAbsoluteURI(url).setFollowRedirects(false)
      .setIdleTimeout(timeoutMs).putHeader("Accept", "application/json").putHeader("User-Agent", "agentbus-oauth");
    if (contentType != null) {
      ro.putHeader("Content-Type", contentType);
    }
    if (authorization != null) {
      ro.putHeader("Authorization", authorization);
    }
    Promise<Response> p = Promise.promise();
    HttpClientRequest[] current = new HttpClientRequest[1];
    long timer = vertx.setTimer(timeoutMs, id -> {
      if (p.tryFail(failure(method, url, who, "no answer within " + timeoutMs + " ms", null)) && current[0] != null) {
        current[0].reset();
      }
    });
    client.request(ro)
      .compose(req -> {
        current[0] = req;
        return body == null ? req.send() : req.send(body);
      })
      .compose(resp -> read(resp, method, url, who))
      .onComplete(ar -> {
        vertx.cancelTimer(timer);
        if (ar.succeeded()) {
          p.tryComplete(ar.result());
        } else {
          p.tryFail(ar.cause() instanceof McpException e ? e
            : failure(method, url, who, String.valueOf(ar.cause().getMessage()), secrets));
        }
      });
    return p.future();
  }

  private Future<Response> read(HttpClientResponse resp, HttpMethod method, String url, String who) {
    Promise<Buffer> p = Promise.promise();
    Buffer acc = Buffer.buffer();
    resp.exceptionHandler(p::tryFail);
    resp.handler(chunk -> {
      if (acc.length() + chunk.length() > MAX_BODY) {
        if (p.tryFail(failure(method, url, who, "the answer is larger than " + MAX_BODY + " bytes", null))) {
          resp.request().reset();
        }
        return;
      }
      acc.appendBuffer(chunk);
    });
    resp.endHandler(v -> p.tryComplete(acc));
    return p.future().map(b -> {
      String text = b.toString(StandardCharsets.UTF_8);
      JsonObject json = null;
      String t = text.trim();
      if (t.startsWith("{")) {
        try {
          json = new JsonObject(t);
        } catch (DecodeException e) {
          json = null;
        }
      }
      return new Response(resp.statusCode(), json, text);
    });
  }

  private static McpException failure(HttpMethod method, String url, String who, String what, Collection<String> secrets) {
    return new McpException(Kind.AUTHORIZATION_FAILED, who + ": " + method + " " + UrlRedaction.redact(url) + " failed: "
      + Secrets.scrub(what, secrets));
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
    return client.close();
  }
}
