package io.agentbus.mcp.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Where discovery may and may not lead, and the well-known URLs it tries. */
@ExtendWith(VertxExtension.class)
class DiscoveryTest {

  @Test
  void aRemoteServerCannotPointAtThisMachine(Vertx vertx, VertxTestContext ctx) {
    Discovery d = new Discovery(new AuthHttp(vertx, 2_000), "server 'remote'", URI.create("https://mcp.example.com/mcp"),
      new OAuthOptions());
    BearerChallenge ch = new BearerChallenge("http://127.0.0.1:1/.well-known/oauth-protected-resource", List.of(), null);
    d.discover(ch).onComplete(ctx.failing(err -> ctx.verify(() -> {
      assertEquals(Kind.AUTHORIZATION_FAILED, ((McpException) err).kind());
      assertTrue(err.getMessage().contains("resource_metadata is not an https URL"), err.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void wellKnownUrlsFollowTheSpecOrder() {
    assertEquals(List.of("https://h.example/.well-known/oauth-protected-resource/a/mcp",
      "https://h.example/.well-known/oauth-protected-resource"),
      Urls.resourceMetadataCandidates(URI.create("https://h.example/a/mcp/")));
    assertEquals(List.of("https://as.example/.well-known/oauth-authorization-server/tenant1",
      "https://as.example/.well-known/openid-configuration/tenant1",
      "https://as.example/tenant1/.well-known/openid-configuration"),
      Urls.authServerMetadataCandidates(URI.create("https://as.example/tenant1")));
    assertEquals(List.of("https://as.example/.well-known/oauth-authorization-server",
      "https://as.example/.well-known/openid-configuration"),
      Urls.authServerMetadataCandidates(URI.create("https://as.example")));
    assertTrue(Urls.resourceCovers(URI.create("https://h.example"), URI.create("https://h.example/mcp")));
    assertTrue(Urls.resourceCovers(URI.create("https://H.example:443/mcp/"), URI.create("https://h.example/mcp")));
    assertFalse(Urls.resourceCovers(URI.create("https://h.example/mc"), URI.create("https://h.example/mcp")));
    assertFalse(Urls.resourceCovers(URI.create("https://evil.example/mcp"), URI.create("https://h.example/mcp")));
  }
}
