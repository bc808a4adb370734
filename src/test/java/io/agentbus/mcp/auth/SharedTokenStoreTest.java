package io.agentbus.mcp.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Transport;
import io.agentbus.store.ConversationStore;
import io.agentbus.store.StoreOptions;
import io.agentbus.testing.FollowRedirectPrompt;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes (two Vert.x instances, each with its own OAuth manager and its own connection
 * to one SQLite file) sharing their tokens through the conversation store: what one authorizes
 * or refreshes, the other uses, against a real (local) protected MCP server and authorization
 * server.
 */
class SharedTokenStoreTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  @TempDir
  Path dir;
  private final List<Vertx> processes = new ArrayList<>();
  private final List<ConversationStore> stores = new ArrayList<>();
  private final byte[] key = new byte[32];
  private Vertx a;
  private Vertx b;
  private OAuthTestServers s;

  @BeforeEach
  void start() throws Exception {
    new SecureRandom().nextBytes(key);
    a = process(true);
    b = process(false);
    s = new OAuthTestServers();
    await(s.start(a));
  }

  @AfterEach
  void stop() throws Exception {
    await(s.close());
    for (ConversationStore st : stores) {
      await(st.close());
    }
    for (Vertx v : processes) {
      await(v.close());
    }
  }

  /** A process whose tokens go to the shared file; with a person to ask or without. */
  private Vertx process(boolean person) throws Exception {
    Vertx vertx = Vertx.vertx();
    processes.add(vertx);
    ConversationStore store = await(ConversationStore.create(vertx,
      new StoreOptions().setPath(dir.resolve("agentbus.db").toString())));
    stores.add(store);
    OAuthManager.install(vertx, new DatabaseTokenStore(store.tokenTable().orElseThrow(), key, store.describe()),
      person ? new FollowRedirectPrompt(vertx) : null);
    return vertx;
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.await(30, TimeUnit.SECONDS);
  }

  private McpServerOptions options() {
    return new McpServerOptions().setName("protected").setUrl(s.mcpUrl()).setTransport(Transport.HTTP)
      .setOauth(new OAuthOptions().setRedirectUri("http://localhost:9999/oauth/callback"))
      .setConnectTimeoutMs(5_000).setTimeoutMs(5_000);
  }

  private Future<Void> connectAndCall(Vertx vertx) {
    McpClient client = McpClient.create(vertx, options());
    return client.connect().compose(init -> client.callTool("echo", new JsonObject(), new CallOptions()))
      .<Void>mapEmpty().eventually(client::close);
  }

  private Throwable connectFailure(Vertx vertx) {
    try {
      await(connectAndCall(vertx));
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("connected, but the authorization should have failed");
  }

  @Test
  void aRunningProcessUsesTheTokensAnotherOneObtainedLater() throws Exception {
    // b is serve with nobody to ask; a is the command line, where a person authorizes
    McpException needed = assertInstanceOf(McpException.class, connectFailure(b));
    assertEquals(Kind.AUTHORIZATION_REQUIRED, needed.kind(), needed.getMessage());
    await(connectAndCall(a));
    await(connectAndCall(b));
    assertEquals(1, s.count("as", "/authorize"));
    assertEquals(1, s.count("as", "/token"));
    assertNothingLeaked();
  }

  @Test
  void aRefreshByOneProcessIsUsedByTheOtherWhoseRefreshTokenWasRotatedAway() throws Exception {
    s.expiresIn = 1; // always about to expire: each connection refreshes first
    s.rotateRefreshTokens = true;
    await(connectAndCall(a)); // authorized: tokens 1
    await(connectAndCall(b)); // b refreshes with refresh token 1: tokens 2, refresh token 1 is dead
    await(connectAndCall(a)); // a holds tokens 1: it takes tokens 2 from the store and refreshes with those
    assertEquals(1, s.count("as", "/authorize"), "nobody had to authorize again");
    // every request about to send an expiring token refreshes it first
    assertTrue(s.count("as", "/token") >= 3, "refreshes: " + (s.count("as", "/token") - 1));
    assertFalse(logs.contains("refresh token was rejected"), "a dead refresh token was used");
    assertNothingLeaked();
  }

  private void assertNothingLeaked() {
    for (String secret : s.validTokens) {
      assertFalse(logs.contains(secret), "a token was logged");
    }
    for (String secret : s.validRefreshTokens) {
      assertFalse(logs.contains(secret), "a refresh token was logged");
    }
    assertTrue(s.validTokens.size() >= 1);
  }
}
