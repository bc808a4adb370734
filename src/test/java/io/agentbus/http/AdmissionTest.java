package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The turn limit holds across the API instances that share it (one listener per event loop). */
@ExtendWith(VertxExtension.class)
class AdmissionTest {

  @Test
  void instancesSharingTheLimitAdmitNoMoreThanItTogether(Vertx vertx) {
    AtomicInteger shared = new AtomicInteger();
    AgentbusMetrics metrics = AgentbusMetrics.get(vertx);
    Admission first = new Admission(2, shared, metrics);
    Admission second = new Admission(2, shared, metrics);
    first.admit(Admission.key(null, "c0-a"), "c0-a");
    second.admit(Admission.key(null, "c0-b"), "c0-b");
    ApiError refused = assertThrows(ApiError.class, () -> second.admit(Admission.key(null, "c0-c"), "c0-c"));
    assertEquals(503, refused.status());
    assertEquals(2, shared.get(), "a refusal does not count");
    first.release(Admission.key(null, "c0-a"));
    second.admit(Admission.key(null, "c0-c"), "c0-c");
    assertEquals(2, shared.get());
    second.release(Admission.key(null, "c0-unknown"));
    assertEquals(2, shared.get(), "releasing what was never admitted changes nothing");
  }

  @Test
  void aSecondTurnOfTheSameConversationIsAConflict(Vertx vertx) {
    Admission admission = new Admission(10, new AtomicInteger(), AgentbusMetrics.get(vertx));
    admission.admit(Admission.key("t", "c0-a"), "c0-a");
    assertEquals(409, assertThrows(ApiError.class, () -> admission.admit(Admission.key("t", "c0-a"), "c0-a")).status());
    admission.admit(Admission.key("other", "c0-a"), "c0-a");
  }
}
