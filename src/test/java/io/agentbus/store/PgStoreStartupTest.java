package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.store.StoreException.Kind;
import io.agentbus.store.impl.PgUri;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A PostgreSQL store that cannot start says so, naming the store and never the password. No server needed. */
class PgStoreStartupTest {

  private static final String SECRET = "s3cr3t-Pw.x";

  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  private static StoreException failure(Future<?> f) throws Exception {
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (StoreException e) {
      return e;
    }
    throw new AssertionError("the store opened");
  }

  private static String everything(Throwable e) {
    StringWriter out = new StringWriter();
    e.printStackTrace(new PrintWriter(out));
    return out + " " + e;
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void aServerThatIsDownFailsCreateNamingTheStoreWithoutThePassword() throws Exception {
    int port = closedPort();
    StoreOptions options = new StoreOptions().setType(StoreOptions.Type.POSTGRES)
      .setUri("postgresql://agent:" + SECRET + "@127.0.0.1:" + port + "/agentbus?sslmode=disable")
      .setConnectTimeoutMs(2_000);
    StoreException e = failure(ConversationStore.create(vertx, options));
    assertEquals(Kind.UNAVAILABLE, e.kind());
    assertTrue(e.getMessage().startsWith("conversation store postgres (postgresql://agent@127.0.0.1:" + port
      + "/agentbus) unavailable at start"), e.getMessage());
    assertFalse(everything(e).contains(SECRET), everything(e));
    assertFalse(options.toString().contains(SECRET), options.toString());
  }

  @Test
  void aServerThatNeverAnswersFailsCreateWithinTheDeadline() throws Exception {
    NetServer silent = vertx.createNetServer().connectHandler(socket -> { });
    int port = silent.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS).actualPort();
    StoreOptions options = new StoreOptions().setType(StoreOptions.Type.POSTGRES)
      .setUri("postgresql://agent:" + SECRET + "@127.0.0.1:" + port + "/agentbus")
      .setConnectTimeoutMs(500).setRequestTimeoutMs(1_000);
    long t0 = System.nanoTime();
    StoreException e = failure(ConversationStore.create(vertx, options));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(Kind.UNAVAILABLE, e.kind(), e.toString());
    assertTrue(ms < 5_000, "took " + ms + " ms");
    assertFalse(everything(e).contains(SECRET), everything(e));
  }

  @Test
  void anUnparsableUriIsInvalidAndNotEchoed() throws Exception {
    StoreOptions options = new StoreOptions().setType(StoreOptions.Type.POSTGRES)
      .setUri("postgresql://agent:" + SECRET + "@db:99999999/agentbus");
    StoreException e = failure(ConversationStore.create(vertx, options));
    assertEquals(Kind.INVALID, e.kind());
    assertTrue(e.getMessage().contains("postgresql://agent@db:99999999/agentbus"), e.getMessage());
    assertFalse(everything(e).contains(SECRET), everything(e));
  }

  @Test
  void postgresNeedsAUri() throws Exception {
    StoreException e = failure(ConversationStore.create(vertx, new StoreOptions().setType(StoreOptions.Type.POSTGRES)));
    assertEquals(Kind.INVALID, e.kind());
    assertTrue(e.getMessage().contains("'uri'"));
  }

  @Test
  void redactionKeepsHostAndDatabaseAndDropsCredentialsAndQuery() {
    assertEquals("postgresql://agent@db.internal:5432/agentbus",
      PgUri.redact("postgresql://agent:p%40ss@db.internal:5432/agentbus?password=other&sslmode=require"));
    assertEquals("postgres://db/x", PgUri.redact("postgres://db/x"));
    assertEquals("(invalid uri)", PgUri.redact("agent:pw@db"));
    String scrubbed = PgUri.scrub("failed for p@ss and p%40ss and other", "postgresql://agent:p%40ss@db/x?password=other");
    assertFalse(scrubbed.contains("p@ss") || scrubbed.contains("p%40ss") || scrubbed.contains("other"), scrubbed);
  }
}
