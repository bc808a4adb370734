package io.agentbus.model.impl;

import io.agentbus.model.ModelOptions;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.TrustOptions;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pooled {@link HttpClient} of a {@link ModelHttp}, with the choice of protocol.
 *
 * <ul>
 *   <li>{@code http2: false}: HTTP/1.1, {@code maxConnections} connections.</li>
 *   <li>TLS: ALPN offers h2 and http/1.1; the server picks per connection.</li>
 *   <li>Cleartext: the first call waits for a probe, one {@code OPTIONS} request offering the h2c
 *       upgrade on a client of its own, closed afterwards (so no POST body ever rides an upgrade).
 *       If the endpoint switches protocols, the client speaks h2c with prior knowledge, else
 *       HTTP/1.1. A probe that cannot connect is repeated by the next call; any other failure
 *       settles on HTTP/1.1, and so does a failure of prior knowledge after a successful upgrade.</li>
 * </ul>
 *
 * <p>An HTTP/2 client is <em>warmed</em> by its first request: calls arriving meanwhile wait until
 * that request holds a stream, then share its connection (up to the server's {@code
 * SETTINGS_MAX_CONCURRENT_STREAMS}) instead of each opening a connection of its own. After that,
 * and for HTTP/1.1 at once, a call costs one volatile read.
 */
final class NegotiatedClient {

  private static final Logger log = LoggerFactory.getLogger(NegotiatedClient.class);
  /**
   * What the server may send on one connection before we acknowledge reading it: the protocol's
   * 64 KiB would hold the replies of many streams back by a round trip each time it runs out
   * (measured: a third fewer calls per second at 64 calls in flight). Replies are read at once,
   * so this is a credit, not a buffer.
   */
  private static final int HTTP2_CONNECTION_WINDOW = 16 * 1024 * 1024;

  private final Vertx vertx;
  private final ModelOptions options;
  private final TrustOptions trust;
  private final UnaryOperator<String> redact;
  /** The client calls use without waiting; null until chosen and warm. */
  private volatile HttpClient ready;
  /** Guarded by this: the chosen client (maybe not warm yet), and whether it is h2c after a probe. */
  private HttpClient chosen;
  private boolean h2cChosen;
  /** Guarded by this: the probe or first request everyone else waits for. */
  private Future<?> pending;
  private boolean closed;

  /**
   * @param trust certificates to trust over TLS, {@code null} for the JVM's trust store
   * @param redact removes the API key from text that goes to the log
   */
  NegotiatedClient(Vertx vertx, ModelOptions options, TrustOptions trust, UnaryOperator<String> redact) {
    this.vertx = vertx;
    this.options = options;
    this.trust = trust;
    this.redact = redact;
    if (!options.isHttp2()) {
      ready = create(false);
    } else if (options.effectiveBaseUrl().startsWith("https:")) {
      chosen = create(true);
    }
  }

  /**
   * @param url the absolute URL of {@code ro}, probed when the protocol is not known yet
   * @param ro the request
   * @return the request, once a connection is there; a failure of the probe or of the first
   *     request fails the calls that waited for it
   */
  Future<HttpClientRequest> request(String url, RequestOptions ro) {
    HttpClient client = ready;
    return client != null ? client.request(ro) : slowRequest(url, ro);
  }

  private Future<HttpClientRequest> slowRequest(String url, RequestOptions ro) {
    Future<?> wait;
    synchronized (this) {
      if (closed) {
        return Future.failedFuture(new IllegalStateException("Client is closed"));
      }
      if (ready != null) {
        return ready.request(ro);
      }
      if (pending == null) {
        if (chosen == null) {
          Future<HttpVersion> probe = probe(url);
          probe.onComplete(ar -> settle(ar.result(), ar.cause()));
          pending = probe;
        } else {
          HttpClient first = chosen;
          Future<HttpClientRequest> req = first.request(ro);
          req.onComplete(ar -> warmed(first, ar.succeeded() ? ar.result().version() : null, ar.cause()));
          pending = req;
          return req;
        }
      }
      wait = pending;
    }
    // come back on the caller's context, where the request has to be made
    Context context = vertx.getOrCreateContext();
    Promise<Void> done = Promise.promise();
    wait.onComplete(ar -> context.runOnContext(v -> {
      if (ar.succeeded() || ready != null) {
        done.complete();
      } else {
        done.fail(ar.cause());
      }
    }));
    return done.future().compose(v -> request(url, ro));
  }

  /** One OPTIONS request offering the h2c upgrade: which protocol answered. */
  private Future<HttpVersion> probe(String url) {
    HttpClient client = vertx.createHttpClient(base().setProtocolVersion(HttpVersion.HTTP_2),
        new PoolOptions().setHttp1MaxSize(1).setHttp2MaxSize(1));
    RequestOptions ro = new RequestOptions()
        .setMethod(HttpMethod.OPTIONS)
        .setAbsoluteURI(url)
        .setIdleTimeout(options.getConnectTimeoutMs());
    return client.request(ro)
        .compose(HttpClientRequest::send)
        .compose(resp -> resp.body().map(b -> resp.version()))
        .eventually(client::close);
  }

  private synchronized void settle(HttpVersion version, Throwable failure) {
    pending = null;
    if (closed || (failure != null && isConnectFailure(failure))) {
      return;
    }
    if (failure != null) {
      log.warn("model API at {}: the h2c upgrade probe failed ({}), using HTTP/1.1", options.effectiveBaseUrl(),
          redact.apply(String.valueOf(failure.getMessage())));
    }
    if (version == HttpVersion.HTTP_2) {
      chosen = create(true);
      h2cChosen = true;
    } else {
      log.info("model API at {} speaks HTTP/1.1", options.effectiveBaseUrl());
      ready = create(false);
    }
  }

  private void warmed(HttpClient client, HttpVersion version, Throwable failure) {
    HttpClient old = null;
    synchronized (this) {
      pending = null;
      if (closed) {
        return;
      }
      if (failure == null) {
        log.info("model API at {} speaks {}", options.effectiveBaseUrl(),
            version != HttpVersion.HTTP_2 ? "HTTP/1.1" : h2cChosen ? "h2c" : "h2");
        ready = client;
      } else if (h2cChosen && !isConnectFailure(failure)) {
        log.warn("model API at {}: h2c with prior knowledge failed after a successful upgrade ({}), using HTTP/1.1",
            options.effectiveBaseUrl(), redact.apply(String.valueOf(failure.getMessage())));
        old = chosen;
        chosen = null;
        ready = create(false);
      }
    }
    if (old != null) {
      old.close();
    }
  }

  private static boolean isConnectFailure(Throwable err) {
    // netty's ConnectTimeoutException is a ConnectException too
    return err instanceof ConnectException || err instanceof UnknownHostException;
  }

  /**
   * @param http2 HTTP/2 (ALPN over TLS, prior knowledge over cleartext) rather than HTTP/1.1 only
   */
  private HttpClient create(boolean http2) {
    HttpClientOptions http = base();
    int http1Max = options.getMaxConnections();
    int http2Max = 1;
    if (http2) {
      http.setProtocolVersion(HttpVersion.HTTP_2).setUseAlpn(true).setHttp2ClearTextUpgrade(false)
          .setHttp2ConnectionWindowSize(HTTP2_CONNECTION_WINDOW);
      // the pool's capacity is the product of the two sizes, an int
      http2Max = Math.max(1, Math.min(options.getHttp2MaxConnections(), Integer.MAX_VALUE / http1Max));
    }
    PoolOptions pool = new PoolOptions()
        .setHttp1MaxSize(http1Max)
        .setHttp2MaxSize(http2Max)
        .setMaxWaitQueueSize(options.getMaxWaitQueueSize());
    return vertx.createHttpClient(http, pool);
  }

  private HttpClientOptions base() {
    HttpClientOptions http = new HttpClientOptions()
        .setKeepAlive(true)
        .setDecompressionSupported(true)
        .setConnectTimeout(options.getConnectTimeoutMs());
    if (trust != null) {
      http.setTrustOptions(trust);
    }
    return http;
  }

  /**
   * Closes the client; a probe in progress closes its own.
   *
   * @return completion of the close
   */
  Future<Void> close() {
    HttpClient client;
    synchronized (this) {
      closed = true;
      client = ready != null ? ready : chosen;
    }
    return client == null ? Future.succeededFuture() : client.close();
  }
}
