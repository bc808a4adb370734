package io.agentbus.mcp.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code "oauth"} object of an mcp.json entry: read, expanded, checked, round-tripped. */
class OAuthOptionsTest {

  private static McpServerOptions read(JsonObject oauth) {
    return McpServerOptions.fromJson("gh", new JsonObject().put("url", "https://mcp.example.com/mcp").put("oauth", oauth),
      EnvExpander.of(Map.of("GH_SECRET", "s3cret-value", "CIMD", "https://app.example.com/client.json",
        "PLAIN", "http://app.example.com/c.json")));
  }

  @Test
  void readsExpandsAndRoundTrips() {
    McpServerOptions o = read(new JsonObject().put("clientId", "app").put("clientSecret", "${GH_SECRET}")
      .put("scopes", List.of("repo:read")).put("clientMetadataUrl", "https://app.example.com/client.json"));
    OAuthOptions a = o.getOauth();
    assertEquals("s3cret-value", a.getClientSecret());
    assertEquals(List.of("repo:read"), a.getScopes());
    assertEquals(OAuthOptions.Grant.AUTHORIZATION_CODE, a.getGrant());
    McpServerOptions copy = new McpServerOptions(o);
    assertEquals(a.toJson(), copy.getOauth().toJson());
    assertTrue(o.unknownFields().isEmpty(), () -> o.unknownFields().toString());
    assertNull(McpServerOptions.fromJson("plain", new JsonObject().put("url", "https://x.example.com/mcp"),
      EnvExpander.of(Map.of())).getOauth());
  }

  @Test
  void aTypoIsReportedAsUnknown() {
    McpServerOptions o = read(new JsonObject().put("clientID", "app"));
    assertTrue(o.unknownFields().stream().anyMatch(l -> l.contains("oauth.clientID") && l.contains("oauth.clientId")),
      () -> o.unknownFields().toString());
  }

  @Test
  void badValuesNameTheField() {
    assertError(new JsonObject().put("grant", "password"), "oauth.grant");
    assertError(new JsonObject().put("clientSecret", "x"), "needs 'clientId'");
    assertError(new JsonObject().put("clientMetadataUrl", "http://app.example.com/c.json"), "oauth.clientMetadataUrl");
    assertError(new JsonObject().put("redirectUri", "http://evil.example.com/cb"), "oauth.redirectUri");
    assertError(new JsonObject().put("grant", "client_credentials").put("clientId", "a"), "client_credentials needs");
    assertError(new JsonObject().put("scopes", List.of("a b")), "oauth.scopes");
    // checked once expanded
    assertEquals("https://app.example.com/client.json",
      read(new JsonObject().put("clientMetadataUrl", "${CIMD}")).getOauth().getClientMetadataUrl());
    assertError(new JsonObject().put("clientMetadataUrl", "${PLAIN}"), "oauth.clientMetadataUrl");
    assertError(new JsonObject().put("grant", "identity_assertion").put("clientId", "a"), "identity_assertion needs");
    ConfigException e = assertThrows(ConfigException.class,
      () -> read(new JsonObject().put("clientSecret", "${GH_SECRET}").put("signingAlgorithm", "HS256").put("clientId", "a")));
    assertFalse(e.getMessage().contains("s3cret-value"), e.getMessage());
  }

  private static void assertError(JsonObject oauth, String expected) {
    ConfigException e = assertThrows(ConfigException.class, () -> read(oauth));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
    assertTrue(e.getMessage().contains("server 'gh'"), e.getMessage());
  }
}
