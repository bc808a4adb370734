package io.agentbus.mcp.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code WWW-Authenticate} Bearer challenges as MCP servers send them. */
class BearerChallengeTest {

  @Test
  void readsScopeResourceMetadataAndError() {
    BearerChallenge c = BearerChallenge.parse(List.of("Bearer error=\"insufficient_scope\", scope=\"mcp:basic mcp:write\","
      + " resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp\", error_description=\"a, b\""));
    assertEquals(List.of("mcp:basic", "mcp:write"), c.scopes());
    assertEquals("http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", c.resourceMetadata());
    assertTrue(c.insufficientScope());
  }

  @Test
  void skipsOtherSchemesAndToleratesNoChallenge() {
    BearerChallenge c = BearerChallenge.parse(List.of("Basic realm=\"x\", Bearer scope=read"));
    assertEquals(List.of("read"), c.scopes());
    assertNull(c.resourceMetadata());
    assertEquals(BearerChallenge.NONE, BearerChallenge.parse(List.of()));
    assertEquals(List.of(), BearerChallenge.parse(List.of("Bearer")).scopes());
  }
}
