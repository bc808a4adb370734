package io.agentbus.model.impl;

import io.agentbus.model.ModelException;
import io.agentbus.model.ModelException.Kind;
import io.agentbus.model.ModelOptions;
import io.agentbus.model.RetryPolicy;
import io.agentbus.sse.SseEvent;
import io.agentbus.sse.SseParser;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.TrustOptions;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The HTTP plumbing shared by the provider clients: one pooled HTTP client ({@link
 * NegotiatedClient}: HTTP/2 by ALPN over TLS, h2c over cleartext where the endpoint accepts it,
 * HTTP/1.1 otherwise), single attempts of JSON and SSE calls, and the mapping of error responses
 * and transport failures to {@link ModelException}s. Retrying is left to the caller ({@link
 * RetryPolicy}).
 */
public final class ModelHttp {

  /** A successful JSON response. */
  public record JsonResponse(JsonObject body, MultiMap headers, String requestId) {
  }

  private final ModelOptions options;
  /** Stream {@code error} types that say "try again": Anthropic's and OpenAI's server-side ones. */
  private static final Set<String> TRANSIENT_STREAM_ERRORS = Set.of("overloaded_error", "api_error", "server_error",
      "rate_limit_error", "timeout_error");

  private final SecretRedactor redactor;
  private final NegotiatedClient client;
  private volatile boolean closed;
  private volatile Endpoint endpoint;

  /**
   * @param vertx the Vert.x instance
   * @param options client options (pool size, HTTP/2, timeouts)
   */
  public ModelHttp(Vertx vertx, ModelOptions options) {
    this(vertx, options, null);
  }

  /**
   * @param vertx the Vert.x instance
   * @param options client options (pool size, HTTP/2, timeouts)
   * @param trust the certificates to trust over TLS, {@code null} for the JVM's trust store
   */
  public ModelHttp(Vertx vertx, ModelOptions options, TrustOptions trust) {
    this.options = new ModelOptions(options);
    this.redactor = new SecretRedactor(options.getApiKey());
    this.client = new NegotiatedClient(vertx, this.options, trust, this::redact);
  }

  /**
   * The request options of one endpoint, built once: a client posts to the same URL with the
   * same headers on every call, and parsing the URL and copying the headers per call showed in
   * profiles. Never mutated after it is built, so shared by every request.
   */
  private record Endpoint(String url, MultiMap headers, RequestOptions json, RequestOptions sse) {
  }

  private Endpoint endpoint(String url, MultiMap headers) {
    Endpoint e = endpoint;
    if (e == null || !e.url().equals(url) || e.headers() != headers) {
      // never followed: a redirect would carry the API key to wherever it points
      RequestOptions json = new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url).setHeaders(headers)
          .setIdleTimeout(options.getRequestTimeoutMs()).setFollowRedirects(false);
      RequestOptions sse = new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url)
          .setHeaders(MultiMap.caseInsensitiveMultiMap().addAll(headers).set("accept", "text/event-stream"))
          .setIdleTimeout(options.getRequestTimeoutMs()).setFollowRedirects(false);
      e = new Endpoint(url, headers, json, sse);
      endpoint = e;
    }
    return e;
  }

  /**
   * One non-streaming POST of a JSON body.
   *
   * @param url absolute URL
   * @param headers request headers
   * @param body JSON body
   * @return the parsed 2xx body, or a failed future with a {@link ModelException}
   */
  public Future<JsonResponse> postJson(String url, MultiMap headers, JsonObject body) {
    return postJson(url, headers, body.toBuffer());
  }

  /** As {@link #postJson(String, MultiMap, JsonObject)}, with the body already encoded. */
  public Future<JsonResponse> postJson(String url, MultiMap headers, Buffer body) {
    if (closed) {
      return Future.failedFuture(closedException());
    }
    return client.request(url, endpoint(url, headers).json())
        .compose(req -> req.send(body))
        .compose(resp -> boundedBody(resp).compose(b -> jsonResponse(resp, b)))
        .recover(err -> Future.failedFuture(transportFailure(err)));
  }

  /**
   * @return the largest whole (non-streamed) response body read: four times the largest
   *     streamed event ({@link ModelOptions#getMaxEventSize()})
   */
  int maxBodyBytes() {
    return (int) Math.min(Integer.MAX_VALUE - 8, options.getMaxEventSize() * 4L);
  }

  /** The response body, or a PROTOCOL failure (the stream reset) once it grows past {@link #maxBodyBytes()}. */
  private Future<Buffer> boundedBody(HttpClientResponse resp) {
    int max = maxBodyBytes();
    Promise<Buffer> done = Promise.promise();
    Buffer body = Buffer.buffer();
    resp.handler(chunk -> {
      if (done.future().isComplete()) {
        return;
      }
      if (body.length() + chunk.length() > max) {
        done.fail(new ModelException(Kind.PROTOCOL, resp.statusCode(), null, "the model endpoint's response body "
            + "is larger than " + max + " bytes (4 x maxEventSize)", redact(requestId(resp.headers())), false, -1, null));
        resp.handler(null);
        resp.request().reset();
        return;
      }
      body.appendBuffer(chunk);
    });
    resp.exceptionHandler(done::tryFail);
    resp.endHandler(v -> done.tryComplete(body));
    return done.future();
  }

  private Future<JsonResponse> jsonResponse(HttpClientResponse resp, Buffer b) {
    String requestId = requestId(resp.headers());
    if (resp.statusCode() / 100 == 3) {
      return Future.failedFuture(redirected(resp));
    }
    if (resp.statusCode() / 100 != 2) {
      return Future.failedFuture(httpError(resp.statusCode(), resp.headers(), b));
    }
    try {
      return Future.succeededFuture(new JsonResponse(b == null || b.length() == 0 ? new JsonObject() : new JsonObject(b),
          resp.headers(), requestId));
    } catch (DecodeException | ClassCastException e) {
      return Future.failedFuture(new ModelException(Kind.PROTOCOL, resp.statusCode(), null,
          "response body is not a JSON object", requestId, false, -1, null));
    }
  }

  /**
   * One streaming POST: the 2xx {@code text/event-stream} body is parsed and each SSE event given
   * to {@code onEvent}. If {@code onEvent} throws, the stream is aborted and the returned future
   * fails with what it threw.
   *
   * @param url absolute URL
   * @param headers request headers
   * @param body JSON body
   * @param onStart called with the response's request id (may be null) once a 2xx arrives
   * @param onEvent called with each SSE event
   * @return completes when the response body ended, or fails with a {@link ModelException}
   */
  public Future<Void> postSse(String url, MultiMap headers, JsonObject body, Handler<String> onStart,
      Handler<SseEvent> onEvent) {
    return postSse(url, headers, body.toBuffer(), onStart, onEvent);
  }

  /** As {@link #postSse(String, MultiMap, JsonObject, Handler, Handler)}, with the body already encoded. */
  public Future<Void> postSse(String url, MultiMap headers, Buffer body, Handler<String> onStart,
      Handler<SseEvent> onEvent) {
    if (closed) {
      return Future.failedFuture(closedException());
    }
    return client.request(url, endpoint(url, headers).sse())
        .compose(req -> req.send(body))
        .recover(err -> Future.failedFuture(transportFailure(err)))
        .compose(resp -> {
          if (resp.statusCode() / 100 == 3) {
            resp.request().reset();
            return Future.failedFuture(redirected(resp));
          }
          if (resp.statusCode() / 100 != 2) {
            return resp.body()
                .recover(err -> Future.succeededFuture(Buffer.buffer()))
                .compose(b -> Future.failedFuture(httpError(resp.statusCode(), resp.headers(), b)));
          }
          onStart.handle(requestId(resp.headers()));
          return consume(resp, onEvent);
        });
  }

  private Future<Void> consume(HttpClientResponse resp, Handler<SseEvent> onEvent) {
    Promise<Void> done = Promise.promise();
    SseParser parser = SseParser.create(options.getMaxEventSize()).handler(ev -> {
      if (!done.future().isComplete()) {
        onEvent.handle(ev);
      }
    });
    parser.exceptionHandler(err -> {
      if (done.tryFail(err instanceof ModelException ? err
          : new ModelException(Kind.PROTOCOL, err.getMessage(), false, err))) {
        resp.handler(null);
        resp.request().reset();
      }
    });
    resp.handler(buf -> {
      if (!done.future().isComplete()) {
        parser.handle(buf);
      }
    });
    resp.exceptionHandler(err -> done.tryFail(transportFailure(err)));
    resp.endHandler(v -> {
      parser.end();
      done.tryComplete();
    });
    return done.future();
  }

  private ModelException redirected(HttpClientResponse resp) {
    String location = resp.headers().get("location");
    return new ModelException(Kind.PROTOCOL, resp.statusCode(), null, redact("the model endpoint answered "
        + resp.statusCode() + " with a redirect" + (location == null ? "" : " to " + truncate(location, 200))
        + "; redirects are not followed, so that the API key never goes elsewhere: set the base URL to the final address"),
        requestId(resp.headers()), false, -1, null);
  }

  private static String truncate(String text, int max) {
    return text.length() > max ? text.substring(0, max) + "..." : text;
  }

  /**
   * Maps an HTTP error response to a {@link ModelException}, reading the API's error body
   * ({@code {"error": {"type", "message"}, "request_id"}} for both providers).
   *
   * @param status the HTTP status
   * @param headers the response headers
   * @param body the response body, may be null
   * @return the exception
   */
  public ModelException httpError(int status, MultiMap headers, Buffer body) {
    String type = null;
    String message = null;
    String requestId = requestId(headers);
    if (body != null && body.length() > 0) {
      try {
        JsonObject json = new JsonObject(body);
        JsonObject error = json.getValue("error") instanceof JsonObject e ? e : null;
        if (error != null) {
          type = error.getValue("type") instanceof String t ? t : null;
          message = error.getValue("message") instanceof String m ? m : null;
        }
        if (requestId == null && json.getValue("request_id") instanceof String r) {
          requestId = r;
        }
      } catch (DecodeException | ClassCastException e) {
        message = truncate(body.toString(), 200);
      }
    }
    if (message == null) {
      message = "HTTP " + status;
    }
    boolean retryable = RetryPolicy.shouldRetry(status, headers);
    return new ModelException(kindOf(status, type), status, redact(type), redact(message), redact(requestId), retryable,
        RetryPolicy.retryAfterMs(headers), null);
  }

  /**
   * Maps a streamed {@code error} payload ({@code {"type":"error","error":{type, message}}}) to a
   * {@link ModelException} of kind {@link Kind#STREAM_ERROR}, retryable when its type is a
   * transient server-side error; the client retries it only while no content reached the caller.
   *
   * @param data the error event payload
   * @param requestId the request id of the response, may be null
   * @return the exception
   */
  public ModelException streamError(JsonObject data, String requestId) {
    JsonObject error = data.getValue("error") instanceof JsonObject e ? e : new JsonObject();
    String type = error.getValue("type") instanceof String t ? t : null;
    String message = error.getValue("message") instanceof String m ? m : "error event in stream";
    String rid = data.getValue("request_id") instanceof String r ? r : requestId;
    // a transient error before any content reached the caller is retried (see BaseModelClient)
    boolean transientError = type != null && TRANSIENT_STREAM_ERRORS.contains(type);
    return new ModelException(Kind.STREAM_ERROR, 0, redact(type), redact(message), redact(rid), transientError, -1, null);
  }

  /**
   * Maps a transport failure (connect error, closed connection, timeout) to a retryable {@link
   * ModelException}; a {@link ModelException} is returned unchanged.
   *
   * @param err the failure
   * @return the exception
   */
  public ModelException transportFailure(Throwable err) {
    if (err instanceof ModelException me) {
      return me;
    }
    if (closed) {
      return closedException();
    }
    String msg = err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage();
    Kind kind = err instanceof TimeoutException ? Kind.TIMEOUT : Kind.CONNECTION;
    return new ModelException(kind, redact(msg), true, null);
  }

  /**
   * @param message what was wrong with the response
   * @param requestId the request id, may be null
   * @return a protocol error (a response we could not understand), not retryable
   */
  public ModelException protocolError(String message, String requestId) {
    return new ModelException(Kind.PROTOCOL, 0, null, redact(message), redact(requestId), false, -1, null);
  }

  private static Kind kindOf(int status, String type) {
    if ("overloaded_error".equals(type)) {
      return Kind.OVERLOADED;
    }
    return switch (status) {
      case 401 -> Kind.AUTHENTICATION;
      case 403 -> Kind.PERMISSION;
      case 404 -> Kind.NOT_FOUND;
      case 408 -> Kind.TIMEOUT;
      case 409 -> Kind.CONFLICT;
      case 413 -> Kind.REQUEST_TOO_LARGE;
      case 429 -> Kind.RATE_LIMITED;
      case 529 -> Kind.OVERLOADED;
      default -> status >= 500 ? Kind.SERVER_ERROR : Kind.INVALID_REQUEST;
    };
  }

  private String requestId(MultiMap headers) {
    if (headers == null) {
      return null;
    }
    String id = headers.get("request-id");
    return redact(id != null ? id : headers.get("x-request-id"));
  }

  /**
   * Never let the API key leak, whatever a server echoes back, in whatever case or encoding.
   *
   * @param text text that came from upstream
   * @return the text without the API key
   */
  public String redact(String text) {
    return redactor.redact(text);
  }

  private static ModelException closedException() {
    return new ModelException(Kind.CLOSED, "model client is closed", false, null);
  }

  /**
   * @return whether {@link #close()} was called
   */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Closes the HTTP client.
   *
   * @return completion of the close
   */
  public Future<Void> close() {
    closed = true;
    return client.close();
  }
}
