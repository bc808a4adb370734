package io.agentbus.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** How the demo model fills tool arguments from the user's words. */
class DemoValuesTest {

  @Test
  void expressionsAndPlacesAreTakenFromTheMessage() {
    assertEquals("(2+3)*4", SchemaValues.arithmeticIn("calculate (2+3)*4 please"));
    assertEquals("12 * 7", SchemaValues.arithmeticIn("What is 12 * 7?"));
    assertNull(SchemaValues.arithmeticIn("no numbers here"));
    assertEquals("Paris", DemoStrategy.placeIn("What is the weather in Paris?"));
    JsonObject schema = new JsonObject("{\"type\":\"object\",\"properties\":{\"expression\":{\"type\":\"string\"}},\"required\":[\"expression\"]}");
    assertEquals("(1+1)^2", SchemaValues.inputFor(schema, "please calculate (1+1)^2 now").getString("expression"));
  }
}
