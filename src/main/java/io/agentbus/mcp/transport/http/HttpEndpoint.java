package io.agentbus.mcp.transport.http;

import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.UrlRedaction;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Map;

/**
 * One MCP server's HTTP origin: the long-lived pooled {@code HttpClient}, the configured
 * headers, and the only URLs we may contact (the configured one and same-origin URIs it
 * hands out). Failures become {@link McpException}s whose messages carry the method and
 * the redacted URL, never header values. Confined to the owning transport's context.
 */
final class HttpEndpoint {

  /** Extra connections beyond the concurrent calls: the GET stream, notifications, DELETE. */
  private static final int SPARE_CONNECTIONS = 4;
  private static final int MAX_ERROR_BODY = 300;

  private final ContextInternal context;
  private final String name;
  private final URI uri;
  private final Map<String, String> headers;
  private final HttpClientAgent client;

  HttpEndpoint(Vertx vertx, Context context, McpServerOptions options) {
    this.context = (ContextInternal) context;
    this.name = options.getName();
    this.uri = parse(options.getUrl(), name);
    this.headers = Map.copyOf(options.getHeaders());
    int connectTimeout = (int) Math.min(Integer.MAX_VALUE, options.getConnectTimeoutMs());
    HttpClientOptions http = new HttpClientOptions()
      .setName("agentbus-mcp-" + name)
      .setConnectTimeout(connectTimeout)
      .setKeepAlive(true)
      .setTcpKeepAlive(true)
      .setVerifyHost(true)
      .setDecompressionSupported(true);
    PoolOptions pool = new PoolOptions()
      .setHttp1MaxSize(options.getMaxConcurrentCalls() + SPARE_CONNECTIONS)
      .setMaxWaitQueueSize(options.getMaxPendingRequests());
    this.client = vertx.createHttpClient(http, pool);
  }

  private static URI parse(String url, String name) {
    try {
      URI u = URI.create(url);
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
        throw new IllegalArgumentException("not an http(s) URL");
      }
      return u;
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new McpException(Kind.TRANSPORT, "server '" + name + "': 'url' must be an http:// or https:// URL, got "
        + UrlRedaction.redact(url));
    }
  }

  /** @return the configured URL */
  URI uri() {
    return uri;
  }

  /** @return the configured URL without credentials or query, for logs */
  String redacted() {
    return redact(uri);
  }

  static String redact(URI u) {
    return UrlRedaction.redact(u.toString());
  }

  /**
   * Resolves a URI reference (as sent in a legacy {@code endpoint} event) against the
   * configured URL and checks that it stays on the same origin.
   */
  URI resolveSameOrigin(String reference) {
    URI resolved;
    try {
      resolved = uri.resolve(reference.trim());
    } catch (IllegalArgumentException e) {
      throw new McpException(Kind.PROTOCOL, "server '" + name + "' sent an endpoint that is not a valid URI");
    }
    if (!sameOrigin(uri, resolved)) {
      throw new McpException(Kind.PROTOCOL, "server '" + name + "' sent an endpoint on another origin ("
        + origin(resolved) + "); only " + origin(uri) + " may be contacted");
    }
    return resolved;
  }

  static boolean sameOrigin(URI a, URI b) {
    return a.getScheme() != null && b.getScheme() != null
      && a.getScheme().equalsIgnoreCase(b.getScheme())
      && a.getHost() != null && b.getHost() != null
      && a.getHost().equalsIgnoreCase(b.getHost())
      && port(a) == port(b);
  }

  private static int port(URI u) {
    if (u.getPort() >= 0) {
      return u.getPort();
    }
    return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
  }

  private static String origin(URI u) {
    return u.getScheme() + "://" + u.getHost() + (u.getPort() >= 0 ? ":" + u.getPort() : "");
  }

  /**
   * Sends one request. The configured headers go first, then {@code extra}. Completes with
   * the response head (any status); the body is left for the caller to consume.
   *
   * @param idleTimeoutMs closes the exchange when no data arrives for this long; 0 for none
   * @param onRequest receives the request once it exists, so that it can be reset
   */
  Future<HttpClientResponse> send(HttpMethod method, URI target, MultiMap extra, Buffer body, long idleTimeoutMs,
                                  Handler<HttpClientRequest> onRequest) {
    if (!sameOrigin(uri, target)) {
      return Future.failedFuture(new McpException(Kind.TRANSPORT, "server '" + name + "': refusing to contact "
        + origin(target) + ", which is not the configured origin"));
    }
    RequestOptions ro = new RequestOptions()
      .setMethod(method)
      .setAbsoluteURI(target.toString())
      .setFollowRedirects(false);
    if (idleTimeoutMs > 0) {
      ro.setIdleTimeout(idleTimeoutMs);
    }
    // an OAuth access token (in extra) replaces a configured Authorization header
    boolean oauth = extra != null && extra.contains("Authorization");
    headers.forEach((k, v) -> {
      if (!(oauth && k.equalsIgnoreCase("Authorization"))) {
        ro.putHeader(k, v);
      }
    });
    if (extra != null) {
      extra.forEach(ro::putHeader);
    }
    // callbacks must run on the owning context whoever calls: hop there when needed
    if (!context.inThread()) {
      Promise<HttpClientResponse> p = context.promise();
      context.runOnContext(v -> send(method, target, extra, body, idleTimeoutMs, onRequest).onComplete(p));
      return p.future();
    }
    return client.request(ro)
      .compose(req -> {
        if (onRequest != null) {
          onRequest.handle(req);
        }
        return body == null ? req.send() : req.send(body);
      })
      .recover(err -> Future.failedFuture(failure(method, target, err)));
  }

  /** Wraps a low-level failure in an {@link McpException} that names what was attempted. */
  McpException failure(HttpMethod method, URI target, Throwable err) {
    if (err instanceof McpException e) {
      return e;
    }
    String what = isConnectFailure(err) ? "cannot connect" : "failed";
    return new McpException(Kind.TRANSPORT, "server '" + name + "': " + method + " " + redact(target) + " " + what
      + ": " + describe(err), err);
  }

  private static String describe(Throwable err) {
    String m = err.getMessage();
    return m == null || m.isBlank() ? err.getClass().getSimpleName() : m;
  }

  /** @return whether the failure happened before any HTTP exchange (refused, DNS, connect timeout) */
  static boolean isConnectFailure(Throwable err) {
    for (Throwable t = err; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException
        || t instanceof io.netty.channel.ConnectTimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * Reads a whole (small) body, failing once it passes {@code limit} bytes.
   */
  static Future<Buffer> readBody(HttpClientResponse resp, int limit) {
    Promise<Buffer> p = Promise.promise();
    Buffer acc = Buffer.buffer();
    resp.exceptionHandler(p::tryFail);
    resp.handler(chunk -> {
      if (acc.length() + chunk.length() > limit) {
        if (p.tryFail(new McpException(Kind.PROTOCOL, "response body exceeds the " + limit + "-byte limit"))) {
          resp.request().reset();
        }
        return;
      }
      acc.appendBuffer(chunk);
    });
    resp.endHandler(v -> p.tryComplete(acc));
    return p.future();
  }

  /**
   * Builds the error for a non-2xx response, with a sanitized body excerpt. The body is
   * read (bounded) first.
   */
  Future<HttpStatusException> statusError(HttpMethod method, URI target, HttpClientResponse resp) {
    return readBody(resp, 64 * 1024)
      .map(b -> b.toString())
      .otherwise("")
      .map(body -> {
        // the Authorization actually sent (an OAuth token is not among the configured headers)
        String excerpt = scrub(sanitize(errorText(body)), resp.request().headers().get("Authorization"));
        return new HttpStatusException("server '" + name + "': " + method + " " + redact(target) + " answered HTTP "
          + resp.statusCode() + (excerpt.isEmpty() ? "" : ": " + excerpt) + authHint(resp), resp.statusCode(), excerpt,
          resp.headers().getAll("WWW-Authenticate"));
      });
  }

  /**
   * The message of a JSON error body: a JSON-RPC error object (under {@code error}, or
   * {@code jsonRpcError} as the Java SDK serializes its exceptions, stack trace and all) or
   * an OAuth {@code error}/{@code error_description}; otherwise the body itself.
   */
  static String errorText(String body) {
    String t = body.trim();
    if (!t.startsWith("{")) {
      return body;
    }
    JsonObject o;
    try {
      o = new JsonObject(t);
    } catch (DecodeException e) {
      return body;
    }
    Object err = o.getValue("error") instanceof JsonObject ? o.getValue("error") : o.getValue("jsonRpcError");
    if (err instanceof JsonObject e && e.getValue("message") instanceof String m) {
      return m + (e.getValue("code") instanceof Number c ? " (" + c + ")" : "");
    }
    if (o.getValue("error") instanceof String code) {
      return code + (o.getValue("error_description") instanceof String d ? ": " + d : "");
    }
    return body;
  }

  /**
   * For 401 and 403: what the server asks for (the {@code WWW-Authenticate} scheme, realm and
   * error code, never any token) and how to supply credentials.
   */
  private String authHint(HttpClientResponse resp) {
    int sc = resp.statusCode();
    if (sc != 401 && sc != 403) {
      return "";
    }
    boolean configured = headers.keySet().stream().anyMatch(h -> h.equalsIgnoreCase("Authorization"));
    String challenge = AuthChallenge.describe(resp.headers().getAll("WWW-Authenticate"));
    StringBuilder hint = new StringBuilder(". ");
    if (sc == 401) {
      hint.append("The server asks for authorization");
    } else {
      hint.append("The server refused access with the credentials sent");
    }
    if (!challenge.isEmpty()) {
      hint.append(" (WWW-Authenticate: ").append(sanitize(challenge)).append(')');
    }
    if (configured) {
      hint.append("; the configured Authorization header was not accepted: check the token in this server's")
        .append(" \"headers\" in mcp.json");
    } else {
      hint.append("; supply credentials with \"headers\" for this server in mcp.json, e.g.")
        .append(" \"headers\": {\"Authorization\": \"Bearer ${TOKEN}\"} (${TOKEN} is read from the environment)");
    }
    return hint.toString();
  }

  /** Blanks out {@code authorization} (e.g. {@code Bearer <token>}) and its token in {@code text}. */
  static String scrub(String text, String authorization) {
    if (authorization == null) {
      return text;
    }
    String token = authorization.substring(authorization.lastIndexOf(' ') + 1);
    String s = authorization.length() >= 4 ? text.replace(authorization, "***") : text;
    return token.length() >= 8 ? s.replace(token, "***") : s;
  }

  /** Shortens a body for an error message and blanks out any configured header value it echoes. */
  String sanitize(String body) {
    String s = body;
    for (String secret : headers.values()) {
      if (secret == null) {
        continue;
      }
      if (secret.length() >= 4) {
        s = s.replace(secret, "***");
      }
      // "Bearer <token>": the token alone must not leak either
      String last = secret.substring(secret.lastIndexOf(' ') + 1);
      if (last.length() >= 8) {
        s = s.replace(last, "***");
      }
    }
    s = s.length() > MAX_ERROR_BODY ? s.substring(0, MAX_ERROR_BODY) + "..." : s;
    return s.replaceAll("\\p{Cntrl}", " ").trim();
  }

  /** Closes the client; completes on the owning context. */
  Future<Void> close() {
    Promise<Void> p = context.promise();
    client.close().onComplete(p);
    return p.future();
  }
}
