package io.agentbus.model;

import io.agentbus.model.anthropic.AnthropicModelClient;
import io.agentbus.model.openai.OpenAiModelClient;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import java.util.Objects;

/**
 * A provider-neutral client of a model API (Anthropic Messages or OpenAI Chat Completions).
 *
 * <p>Requests and replies use the canonical Anthropic-shaped format ({@link ModelRequest}, {@link
 * ModelResponse}); the OpenAI client maps to and from it. Failures are {@link ModelException}s;
 * transient ones are retried per {@link RetryPolicy}. Each client holds one long-lived pooled
 * HTTP client: create one per process (or per verticle), not one per request.
 */
public interface ModelClient {

  /**
   * Creates a client for {@link ModelOptions#getProvider()}.
   *
   * @param vertx the Vert.x instance
   * @param options the options (copied)
   * @return a new client
   */
  static ModelClient create(Vertx vertx, ModelOptions options) {
    Objects.requireNonNull(vertx, "'vertx' cannot be null");
    Objects.requireNonNull(options, "'options' cannot be null");
    return switch (options.provider()) {
      case OPENAI -> new OpenAiModelClient(vertx, options);
      case ANTHROPIC -> new AnthropicModelClient(vertx, options);
    };
  }

  /**
   * @return the provider this client talks to
   */
  Provider provider();

  /**
   * Sends a non-streaming request (the request's stream flag is ignored).
   *
   * @param request the request
   * @return the reply, or a failed future with a {@link ModelException}
   */
  Future<ModelResponse> send(ModelRequest request);

  /**
   * Sends a streaming request, delivering incremental events on the caller's context as they
   * arrive. The request is retried only if it fails before any event was delivered.
   *
   * @param request the request
   * @param handler receives the stream events
   * @return the fully assembled reply (the same content {@link #send} would give), or a failed
   *     future with a {@link ModelException}
   */
  Future<ModelResponse> stream(ModelRequest request, Handler<ModelStreamEvent> handler);

  /**
   * Closes the underlying HTTP client; later calls fail with {@link ModelException.Kind#CLOSED}.
   *
   * @return completion of the close
   */
  Future<Void> close();
}
