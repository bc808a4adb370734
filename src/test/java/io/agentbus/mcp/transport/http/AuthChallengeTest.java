package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** WWW-Authenticate summaries show schemes and a few safe parameters only. */
class AuthChallengeTest {

  @Test
  void showsSchemeRealmErrorAndScope() {
    assertEquals("Bearer realm=\"mcp\", error=\"insufficient_scope\", scope=\"files:read\"",
      AuthChallenge.describe(List.of("Bearer realm=\"mcp\", error=\"insufficient_scope\", scope=\"files:read\", "
        + "resource_metadata=\"https://x.example/.well-known/oauth-protected-resource\"")));
  }

  @Test
  void splitsSeveralChallengesAndIgnoresCommasInQuotes() {
    assertEquals("Basic realm=\"a, b\", Bearer realm=\"c\"",
      AuthChallenge.describe(List.of("Basic realm=\"a, b\", charset=\"UTF-8\", Bearer realm=\"c\"")));
    assertEquals("Negotiate, Bearer", AuthChallenge.describe(List.of("Negotiate", "Bearer")));
  }

  @Test
  void dropsToken68AndUnknownParameters() {
    assertEquals("Negotiate", AuthChallenge.describe(List.of("Negotiate YIIBhwYGKwYBBQUCoIIBezCCAXeg==")));
    assertEquals("Digest realm=\"r\"", AuthChallenge.describe(List.of("Digest realm=\"r\", nonce=\"abc\", opaque=\"xyz\"")));
    assertEquals("", AuthChallenge.describe(List.of(" ")));
  }
}
