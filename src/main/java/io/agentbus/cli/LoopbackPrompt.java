package io.agentbus.cli;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.auth.AuthorizationCallback;
import io.agentbus.mcp.auth.AuthorizationPrompt;
import io.agentbus.mcp.auth.AuthorizationRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A person authorizes from the command line, the way desktop MCP hosts do it: the
 * authorization URL is printed (one line on stderr), the browser comes back to a loopback
 * HTTP listener, which answers with a small page and completes the authorization with the
 * redirect's query.
 *
 * <p>The listener for {@link #redirectUri()} ({@code http://127.0.0.1:<port>/oauth/callback},
 * port 0) is up before any URL is built; a server whose {@code oauth.redirectUri} is an
 * {@code http://} loopback URL gets a listener on that port when it is asked. Each request
 * waits at most the given timeout; {@link #close()} (the command's end) fails what still
 * waits and stops listening. Waiting requests are found by their {@code state}: a callback
 * with an unknown one gets an error page and ends nothing.
 */
public final class LoopbackPrompt implements AuthorizationPrompt {

  /** The path of the default redirect URI. */
  public static final String CALLBACK_PATH = "/oauth/callback";
  /** Authorizations waiting at once (one per server of the command at most, in practice). */
  static final int MAX_WAITING = 256;

  private record Waiting(String server, Promise<AuthorizationCallback> promise, long timer) {
  }

  private final Vertx vertx;
  private final long timeoutMs;
  private final PrintStream err;
  private final HttpServer main;
  /** Listeners by {@code host:port}, the default one included. */
  private final Map<String, Future<HttpServer>> listeners = new ConcurrentHashMap<>();
  private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private LoopbackPrompt(Vertx vertx, long timeoutMs, PrintStream err) {
    this.vertx = vertx;
    this.timeoutMs = timeoutMs;
    this.err = err;
    this.main = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)).requestHandler(this::callback);
  }

  /**
   * Starts the default listener on 127.0.0.1, port 0.
   *
   * @param timeoutMs how long each authorization waits for the person
   * @param err where the authorization URL is printed
   */
  public static Future<LoopbackPrompt> start(Vertx vertx, long timeoutMs, PrintStream err) {
    LoopbackPrompt prompt = new LoopbackPrompt(vertx, timeoutMs, err);
    return prompt.main.listen()
      .recover(e -> Future.failedFuture(new IllegalStateException("cannot listen on 127.0.0.1 for OAuth callbacks: "
        + e.getMessage())))
      .map(s -> {
        prompt.listeners.put("127.0.0.1:" + s.actualPort(), Future.succeededFuture(s));
        return prompt;
      });
  }

  /** @return {@code http://127.0.0.1:<port>/oauth/callback}, for servers whose options name no redirect URI */
  public String redirectUri() {
    return "http://127.0.0.1:" + main.actualPort() + CALLBACK_PATH;
  }

  @Override
  public Future<AuthorizationCallback> authorize(AuthorizationRequest request) {
    String who = "server '" + request.server() + "'";
    URI redirect = URI.create(request.redirectUri());
    if (!"http".equalsIgnoreCase(redirect.getScheme()) || !loopback(redirect.getHost())) {
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + " sends the person back to "
        + request.redirectUri() + " (oauth.redirectUri), which the command line cannot receive: it listens on"
        + " http:// loopback addresses only (remove oauth.redirectUri to use its own)"));
    }
    String state = queryParam(request.authorizationUrl(), "state");
    if (state == null) {
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": the authorization URL has no state"));
    }
    if (closed || waiting.size() >= MAX_WAITING) {
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": "
        + (closed ? "the command is ending" : "too many authorizations at once")));
    }
    return listener(redirect, who).compose(s -> {
      Promise<AuthorizationCallback> p = Promise.promise();
      long timer = vertx.setTimer(timeoutMs, id -> {
        Waiting w = waiting.remove(state);
        if (w != null) {
          w.promise().tryFail(new McpException(Kind.AUTHORIZATION_FAILED, who + ": nobody completed the authorization"
            + " within " + seconds(timeoutMs) + " (--authorize-timeout); run the command again for a new URL"));
        }
      });
      waiting.put(state, new Waiting(request.server(), p, timer));
      err.println("agentbus: open this URL in a browser to authorize " + who + " (waiting "
        + seconds(timeoutMs) + "): " + request.authorizationUrl());
      return p.future();
    });
  }

  /** The listener for a loopback redirect URI: the default one, or one on its port (started now). */
  private Future<HttpServer> listener(URI redirect, String who) {
    String host = redirect.getHost().startsWith("[") || redirect.getHost().equals("::1") ? "::1" : "127.0.0.1";
    int port = redirect.getPort() >= 0 ? redirect.getPort() : 80;
    return listeners.computeIfAbsent(host + ":" + port, k -> vertx.createHttpServer(new HttpServerOptions()
        .setHost(host).setPort(port)).requestHandler(this::callback).listen()
      .recover(e -> Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": cannot listen on "
        + host + ":" + port + " for its oauth.redirectUri " + redirect + ": " + e.getMessage()))));
  }

  private void callback(HttpServerRequest req) {
    if (req.method() != HttpMethod.GET) {
      req.response().setStatusCode(405).end();
      return;
    }
    AuthorizationCallback cb = AuthorizationCallback.of(req.params());
    if (cb.state() == null && cb.code() == null && cb.error() == null) {
      req.response().setStatusCode(404).end();
      return;
    }
    Waiting w = cb.state() == null ? null : waiting.remove(cb.state());
    if (w == null) {
      CallbackPage.send(req, 400, "Unknown authorization", "This authorization request is unknown or has expired."
        + " Go back to the terminal and run the command again.");
      return;
    }
    vertx.cancelTimer(w.timer());
    if (cb.error() != null) {
      String d = cb.errorDescription();
      String description = d == null ? "" : ": " + (d.length() > 200 ? d.substring(0, 200) + "..." : d);
      CallbackPage.send(req, 200, "Authorization refused", "Server '" + w.server() + "' was not authorized ("
        + cb.error() + description + "). You may close this window.");
    } else {
      CallbackPage.send(req, 200, "Authorized", "Server '" + w.server() + "' is authorized. You may close this window"
        + " and go back to the terminal.");
    }
    // the client checks state, iss and error, and exchanges the code
    w.promise().tryComplete(cb);
  }

  /** Fails every authorization still waiting and stops listening. */
  public Future<Void> close() {
    closed = true;
    for (String state : new ArrayList<>(waiting.keySet())) {
      Waiting w = waiting.remove(state);
      if (w != null) {
        vertx.cancelTimer(w.timer());
        w.promise().tryFail(new McpException(Kind.AUTHORIZATION_FAILED, "server '" + w.server()
          + "': the command ended before the authorization was completed"));
      }
    }
    List<Future<Void>> closing = new ArrayList<>();
    listeners.values().forEach(f -> closing.add(f.compose(HttpServer::close).otherwiseEmpty()));
    return Future.join(closing).mapEmpty();
  }

  private static boolean loopback(String host) {
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    return h.equals("localhost") || h.equals("127.0.0.1") || h.equals("[::1]") || h.equals("::1");
  }

  private static String queryParam(String url, String name) {
    String raw = URI.create(url).getRawQuery();
    if (raw == null) {
      return null;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8).equals(name)) {
        return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private static String seconds(long ms) {
    return (ms % 1000 == 0 ? String.valueOf(ms / 1000) : String.format(Locale.ROOT, "%.1f", ms / 1000.0)) + " s";
  }
}
