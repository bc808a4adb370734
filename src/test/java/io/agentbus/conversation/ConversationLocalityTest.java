package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.model.ModelOptions;
import io.vertx.core.Future;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With one conversation instance per event loop (what {@code serve} deploys), every event loop
 * has a conversation instance of its own, so a caller there (the HTTP API) keeps the turn on
 * its loop; off any loop there is none.
 */
class ConversationLocalityTest {

  @Test
  void everyEventLoopHasItsOwnConversationInstance() throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    try {
      ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("unused").setBaseUrl("http://127.0.0.1:9");
      Agentbus agentbus = Agentbus.deploy(vertx, new AgentbusOptions().setConversationInstances(2)
        .setConversation(new ConversationOptions().setModel(model))).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      List<String> seen = new CopyOnWriteArrayList<>();
      // Each instance gets a context of its own, on the next event loop in turn.
      vertx.deployVerticle(() -> new VerticleBase() {
        @Override
        public Future<?> start() {
          seen.add(String.valueOf(ConversationVerticle.localAddress(vertx)));
          return Future.succeededFuture();
        }
      }, new DeploymentOptions().setInstances(6)).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      Set<String> addresses = new HashSet<>(seen);
      assertFalse(addresses.contains("null"), "an event loop without a conversation instance: " + seen);
      assertEquals(2, addresses.size(), "both instances, one per loop: " + addresses);
      assertNull(ConversationVerticle.localAddress(vertx), "this test thread is no event loop");
      agentbus.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      Promise<String> afterClose = Promise.promise();
      vertx.deployVerticle(new VerticleBase() {
        @Override
        public Future<?> start() {
          afterClose.complete(ConversationVerticle.localAddress(vertx));
          return Future.succeededFuture();
        }
      });
      assertNull(afterClose.future().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
