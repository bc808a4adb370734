package io.agentbus.mcp.auth;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.CopyOptions;
import io.vertx.core.file.FileSystem;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Tokens in one file, encrypted at rest with AES-GCM (a fresh 96-bit IV per write, a 128-bit
 * tag). The key is 16, 24 or 32 bytes, typically from {@code AGENTBUS_TOKEN_KEY} (base64).
 * The whole map is read once (with {@code vertx.fileSystem()}), kept in memory, and written
 * back after each change (to a temporary file, then moved over the old one), one write at a
 * time; connections on any event loop may use it. A file written with another key fails to load with a message that says so.
 */
public final class EncryptedFileTokenStore implements TokenStore {

  /** The environment variable that holds the base64 key. */
  public static final String KEY_ENV = "AGENTBUS_TOKEN_KEY";
  /** The default file, relative to the working directory. */
  public static final String DEFAULT_PATH = "data/oauth-tokens.bin";

  private static final byte[] MAGIC = "ABT1".getBytes(StandardCharsets.US_ASCII);
  private static final int IV_BYTES = 12;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Vertx vertx;
  private final String path;
  private final SecretKeySpec key;
  private Future<Map<String, JsonObject>> loaded;
  private Future<Void> writes = Future.succeededFuture();

  /**
   * A store in {@code path} with {@code key} (16, 24 or 32 bytes).
   *
   * @throws IllegalArgumentException when the key has another length
   */
  public EncryptedFileTokenStore(Vertx vertx, String path, byte[] key) {
    if (key == null || !(key.length == 16 || key.length == 24 || key.length == 32)) {
      throw new IllegalArgumentException(KEY_ENV + " must be base64 of 16, 24 or 32 bytes");
    }
    this.vertx = vertx;
    this.path = path;
    this.key = new SecretKeySpec(key.clone(), "AES");
  }

  /**
   * Decodes a base64 key as {@code AGENTBUS_TOKEN_KEY} holds it.
   *
   * @throws IllegalArgumentException when it is not base64 of 16, 24 or 32 bytes (the message never shows the value)
   */
  public static byte[] decodeKey(String base64) {
    byte[] k;
    try {
      k = Base64.getDecoder().decode(base64.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(KEY_ENV + " is not valid base64");
    }
    if (!(k.length == 16 || k.length == 24 || k.length == 32)) {
      throw new IllegalArgumentException(KEY_ENV + " must be base64 of 16, 24 or 32 bytes (was " + k.length + " bytes)");
    }
    return k;
  }

  private synchronized Future<Map<String, JsonObject>> entries() {
    if (loaded == null) {
      FileSystem fs = vertx.fileSystem();
      loaded = fs.exists(path).compose(exists -> !exists ? Future.succeededFuture(new ConcurrentHashMap<>())
        : fs.readFile(path).compose(b -> {
          try {
            return Future.succeededFuture(decrypt(b));
          } catch (GeneralSecurityException | RuntimeException e) {
            return Future.failedFuture(new IllegalStateException("cannot read the token file " + path
              + ": it was written with another " + KEY_ENV + " or is damaged"));
          }
        }));
    }
    return loaded;
  }

  @Override
  public Future<TokenSet> get(String tenant, String serverKey) {
    return entries().map(m -> {
      JsonObject j = m.get(TokenStore.key(tenant, serverKey));
      return j == null ? null : TokenSet.fromJson(j);
    });
  }

  @Override
  public Future<Void> put(String tenant, String serverKey, TokenSet tokens) {
    return entries().compose(m -> {
      m.put(TokenStore.key(tenant, serverKey), tokens.toJson());
      return save(m);
    });
  }

  @Override
  public Future<Void> remove(String tenant, String serverKey) {
    return entries().compose(m -> m.remove(TokenStore.key(tenant, serverKey)) == null ? Future.succeededFuture() : save(m));
  }

  private synchronized Future<Void> save(Map<String, JsonObject> m) {
    Buffer data;
    try {
      data = encrypt(m);
    } catch (GeneralSecurityException e) {
      return Future.failedFuture(new IllegalStateException("cannot encrypt the token file: " + e.getClass().getSimpleName()));
    }
    Promise<Void> done = Promise.promise();
    writes = writes.transform(ar -> write(data)).onComplete(done);
    return done.future();
  }

  private Future<Void> write(Buffer data) {
    FileSystem fs = vertx.fileSystem();
    String tmp = path + ".tmp";
    Path parent = Path.of(path).toAbsolutePath().getParent();
    return fs.mkdirs(parent.toString())
      .compose(v -> fs.writeFile(tmp, data))
      .compose(v -> fs.chmod(tmp, "rw-------").otherwiseEmpty())
      .compose(v -> fs.move(tmp, path, new CopyOptions().setReplaceExisting(true).setAtomicMove(true)));
  }

  private Buffer encrypt(Map<String, JsonObject> m) throws GeneralSecurityException {
    JsonObject all = new JsonObject();
    m.forEach(all::put);
    byte[] iv = new byte[IV_BYTES];
    RANDOM.nextBytes(iv);
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
    c.updateAAD(MAGIC);
    byte[] ct = c.doFinal(new JsonObject().put("entries", all).toBuffer().getBytes());
    return Buffer.buffer().appendBytes(MAGIC).appendBytes(iv).appendBytes(ct);
  }

  private Map<String, JsonObject> decrypt(Buffer b) throws GeneralSecurityException {
    byte[] bytes = b.getBytes();
    if (bytes.length < MAGIC.length + IV_BYTES + 16 || !Arrays.equals(Arrays.copyOf(bytes, MAGIC.length), MAGIC)) {
      throw new GeneralSecurityException("not a token file");
    }
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, bytes, MAGIC.length, IV_BYTES));
    c.updateAAD(MAGIC);
    byte[] pt = c.doFinal(bytes, MAGIC.length + IV_BYTES, bytes.length - MAGIC.length - IV_BYTES);
    JsonObject entries = new JsonObject(Buffer.buffer(pt)).getJsonObject("entries", new JsonObject());
    Map<String, JsonObject> m = new ConcurrentHashMap<>();
    entries.forEach(e -> m.put(e.getKey(), (JsonObject) e.getValue()));
    return m;
  }
}
