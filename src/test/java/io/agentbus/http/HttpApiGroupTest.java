package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The listeners of one API (one per event loop, as serve deploys them) share one port. */
@ExtendWith(VertxExtension.class)
class HttpApiGroupTest {

  @Test
  void everyMemberListensOnTheFirstOnesPort(Vertx vertx, VertxTestContext ctx) {
    HttpApiVerticle.Group group = new HttpApiVerticle.Group();
    HttpApiOptions options = new HttpApiOptions().setHost("127.0.0.1").setPort(HttpApiVerticle.Group.freePort("127.0.0.1"));
    vertx.deployVerticle(() -> group.newMember(options), new DeploymentOptions().setInstances(3))
      .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        assertEquals(3, group.members().size());
        int port = options.getPort();
        group.members().forEach(m -> assertEquals(port, m.actualPort()));
        ctx.completeNow();
      })));
  }
}
