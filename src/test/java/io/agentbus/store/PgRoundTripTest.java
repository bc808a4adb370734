package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.pgclient.PgConnectOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Writes on the {@code postgres} store cost one round trip each, counted on the wire: a proxy
 * between the store and the server counts what the client asks the server to answer (a Sync
 * ends an extended-protocol exchange, a Query is one simple query).
 */
class PgRoundTripTest {

  private Vertx vertx;
  private NetServer proxy;
  private NetClient client;
  private ConversationStore store;
  private String schema;
  private final AtomicInteger roundTrips = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    PgTestSupport.requireServer();
    vertx = Vertx.vertx();
    PgConnectOptions target = PgConnectOptions.fromUri(PgTestSupport.uri());
    client = vertx.createNetClient();
    proxy = vertx.createNetServer().connectHandler(in -> {
      in.pause();
      client.connect(target.getPort(), target.getHost()).onComplete(ar -> {
        if (ar.failed()) {
          in.close();
          return;
        }
        NetSocket out = ar.result();
        SyncCounter counter = new SyncCounter(roundTrips);
        in.handler(buf -> {
          counter.feed(buf);
          out.write(buf);
        });
        out.handler(in::write);
        in.closeHandler(v -> out.close());
        out.closeHandler(v -> in.close());
        in.resume();
      });
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    schema = PgTestSupport.newSchema();
    String uri = "postgresql://" + target.getUser() + (target.getPassword() == null ? "" : ":" + target.getPassword())
      + "@127.0.0.1:" + proxy.actualPort() + "/" + target.getDatabase();
    store = ConversationStore.create(vertx, new StoreOptions().setType(StoreOptions.Type.POSTGRES).setUri(uri)
      .setSchema(schema).setPoolSize(1)).await(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (store != null) {
        store.close().await(10, TimeUnit.SECONDS);
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
      PgTestSupport.dropSchema(schema);
    }
  }

  private interface Op {
    void run() throws Exception;
  }

  private int roundTrips(Op op) throws Exception {
    int before = roundTrips.get();
    op.run();
    return roundTrips.get() - before;
  }

  @Test
  void insertTurnAndDeleteTakeOneRoundTripEach() throws Exception {
    // the first of each statement on a connection also prepares it (cached after)
    warm("w-1");
    List<JsonObject> turn = List.of(new JsonObject().put("role", "user").put("content", "hi"),
      new JsonObject().put("role", "assistant").put("content", "hello"),
      new JsonObject().put("role", "user").put("content", "more"),
      new JsonObject().put("role", "assistant").put("content", "done"));
    JsonObject usage = new JsonObject().put("input_tokens", 10).put("server_tool_use", new JsonObject().put("web_search_requests", 1));
    assertEquals(1, roundTrips(() -> store.insert(NewConversation.of("c-1")).await(10, TimeUnit.SECONDS)), "insert");
    assertEquals(1, roundTrips(() -> store.appendTurn("c-1", 0, turn, usage).await(10, TimeUnit.SECONDS)), "appendTurn");
    assertEquals(1, roundTrips(() -> store.appendTurn("c-1", 1, List.of(), null).await(10, TimeUnit.SECONDS)), "appendTurn, no messages");
    assertEquals(1, roundTrips(() -> store.delete("c-1").await(10, TimeUnit.SECONDS)), "delete");
  }

  private void warm(String id) throws Exception {
    store.insert(NewConversation.of(id)).await(10, TimeUnit.SECONDS);
    store.appendTurn(id, 0, List.of(new JsonObject().put("role", "user").put("content", "x")), null).await(10, TimeUnit.SECONDS);
    store.delete(id).await(10, TimeUnit.SECONDS);
  }

  /** Reads the frontend message stream: the startup message, then typed messages; counts Sync and Query. */
  private static final class SyncCounter {
    private final AtomicInteger count;
    private Buffer pending = Buffer.buffer();
    private boolean started;

    SyncCounter(AtomicInteger count) {
      this.count = count;
    }

    void feed(Buffer buf) {
      pending.appendBuffer(buf);
      while (true) {
        int header = started ? 5 : 4;
        if (pending.length() < header) {
          return;
        }
        int length = pending.getInt(started ? 1 : 0);
        int total = (started ? 1 : 0) + length;
        if (pending.length() < total) {
          return;
        }
        if (started && (pending.getByte(0) == 'S' || pending.getByte(0) == 'Q')) {
          count.incrementAndGet();
        }
        started = true;
        pending = pending.getBuffer(total, pending.length());
      }
    }
  }
}
