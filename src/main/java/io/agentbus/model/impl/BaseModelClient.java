package io.agentbus.model.impl;

import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelException;
import io.agentbus.model.ModelOptions;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelStreamEvent;
import io.agentbus.model.RetryPolicy;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both provider clients share: the HTTP plumbing, the retry loop, and the rule that a stream
 * is retried only while no event has reached the caller.
 */
public abstract class BaseModelClient implements ModelClient {

  private static final Logger log = LoggerFactory.getLogger(BaseModelClient.class);

  protected final ModelOptions options;
  protected final ModelHttp http;
  private final EncodedTools tools = new EncodedTools();
  private final RetryPolicy retry;
  private final String url;
  private final MultiMap headers;

  /**
   * @param path the endpoint path below {@link ModelOptions#effectiveBaseUrl()}
   * @param headers the provider's own headers (authentication included); content-type and
   *     user-agent are added
   */
  protected BaseModelClient(Vertx vertx, ModelOptions options, String path, MultiMap headers) {
    this.options = new ModelOptions(options);
    this.http = new ModelHttp(vertx, options);
    this.retry = new RetryPolicy(vertx, options.getMaxRetries());
    this.url = this.options.effectiveBaseUrl() + path;
    this.headers = MultiMap.caseInsensitiveMultiMap().addAll(headers).set("content-type", "application/json")
        .set("user-agent", "agentbus/0.1");
  }

  /**
   * @param request the canonical request
   * @param stream whether to stream
   * @return the provider request body
   */
  protected abstract JsonObject body(ModelRequest request, boolean stream);

  /**
   * @param body the provider's non-streaming response body
   * @param requestId the request id header
   * @return the canonical reply
   */
  protected abstract ModelResponse response(JsonObject body, String requestId);

  /**
   * @param handler receives the stream events
   * @param requestId supplies the request id once the response started
   * @return a fresh assembler for one attempt
   */
  protected abstract StreamAssembler assembler(Handler<ModelStreamEvent> handler, Supplier<String> requestId);

  @Override
  public Future<ModelResponse> send(ModelRequest request) {
    Buffer body;
    try {
      body = tools.encode(request, body(request, false));
    } catch (ModelException e) {
      return Future.failedFuture(e);
    }
    return retry.execute(provider().id() + " request", () -> http.postJson(url, headers, body)
        .compose(r -> {
          try {
            return Future.succeededFuture(response(r.body(), r.requestId()));
          } catch (ModelException e) {
            return Future.failedFuture(e);
          } catch (RuntimeException e) {
            return Future.failedFuture(http.protocolError("unreadable response: " + e, r.requestId()));
          }
        }));
  }

  @Override
  public Future<ModelResponse> stream(ModelRequest request, Handler<ModelStreamEvent> handler) {
    Buffer body;
    try {
      body = tools.encode(request, body(request, true));
    } catch (ModelException e) {
      return Future.failedFuture(e);
    }
    return retry.execute(provider().id() + " stream", () -> attempt(body, headers, handler));
  }

  /**
   * One streamed attempt. Events that carry no content ({@code message_start}, usage) are held
   * back until the first content event, so that a stream failing before any content reached
   * the caller is retried like any other transient failure, and the caller never sees an
   * attempt twice.
   */
  private Future<ModelResponse> attempt(Buffer body, MultiMap headers, Handler<ModelStreamEvent> handler) {
    List<ModelStreamEvent> held = new ArrayList<>(2);
    boolean[] delivered = {false};
    String[] requestId = {null};
    Handler<ModelStreamEvent> deliver = ev -> {
      try {
        handler.handle(ev);
      } catch (RuntimeException e) {
        log.warn("{} stream handler failed: {}", provider().id(), e.toString());
      }
    };
    StreamAssembler assembler = assembler(ev -> {
      if (!delivered[0] && !carriesContent(ev)) {
        held.add(ev);
        return;
      }
      if (!delivered[0]) {
        delivered[0] = true;
        held.forEach(deliver::handle);
        held.clear();
      }
      deliver.handle(ev);
    }, () -> requestId[0]);
    return http.postSse(url, headers, body, rid -> requestId[0] = rid, assembler::handle)
        .compose(v -> {
          try {
            ModelResponse response = assembler.finish();
            held.forEach(deliver::handle);
            return Future.succeededFuture(response);
          } catch (ModelException e) {
            return Future.failedFuture(e);
          }
        })
        .recover(err -> {
          ModelException me = http.transportFailure(err);
          return Future.failedFuture(delivered[0] ? me.withRetryable(false) : me);
        });
  }

  private static boolean carriesContent(ModelStreamEvent ev) {
    return !(ev instanceof ModelStreamEvent.MessageStarted) && !(ev instanceof ModelStreamEvent.UsageUpdated);
  }

  @Override
  public Future<Void> close() {
    return http.close();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + options + "}";
  }
}
