package io.agentbus.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvExpanderTest {

  private final EnvExpander env = EnvExpander.of(Map.of("A", "1", "PRICE", "$5\\x"));

  @Test
  void expandsEveryFormAndKeepsLiteralText() {
    assertEquals("x1y1z", env.expand("x${A}y${env:A}z", "f"));
    assertEquals("dflt", env.expand("${B:-dflt}", "f"));
    assertEquals("", env.expand("${B:-}", "f"));
    assertEquals("$5\\x", env.expand("${PRICE}", "f"));
    assertEquals("no refs $A", env.expand("no refs $A", "f"));
  }

  @Test
  void missingVariableNamesTheFieldButNeverAValue() {
    ConfigException e = assertThrows(ConfigException.class, () -> env.expand("Bearer ${TOKEN}", "server 'x': headers.Authorization"));
    assertEquals("server 'x': headers.Authorization: environment variable 'TOKEN' is not set", e.getMessage());
    assertFalse(e.getMessage().contains("Bearer"));
  }
}
