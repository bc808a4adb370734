package io.agentbus.mcp.auth;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals one (tenant, server)'s {@link TokenSet} for a database row: AES-GCM with a fresh random
 * 96-bit nonce per seal and a 128-bit tag, the row's (tenant, server key) as associated data.
 * A sealed value is {@code 0x01 | nonce | ciphertext+tag}. Opening it with another key, or for
 * another (tenant, server key) (a row copied to another tenant), fails: nothing but the value
 * sealed for exactly that row under exactly that key is ever returned.
 */
final class TokenSealer {

  private static final byte FORMAT = 1;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final String AAD_PREFIX = "agentbus oauth tokens v1|";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;

  /** @param key 16, 24 or 32 bytes ({@link EncryptedFileTokenStore#decodeKey}) */
  TokenSealer(byte[] key) {
    if (key == null || !(key.length == 16 || key.length == 24 || key.length == 32)) {
      throw new IllegalArgumentException(EncryptedFileTokenStore.KEY_ENV + " must be base64 of 16, 24 or 32 bytes");
    }
    this.key = new SecretKeySpec(key.clone(), "AES");
  }

  byte[] seal(String tenant, String serverKey, TokenSet tokens) throws GeneralSecurityException {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
    c.updateAAD(aad(tenant, serverKey));
    byte[] ct = c.doFinal(tokens.toJson().toBuffer().getBytes());
    byte[] out = new byte[1 + NONCE_BYTES + ct.length];
    out[0] = FORMAT;
    System.arraycopy(nonce, 0, out, 1, NONCE_BYTES);
    System.arraycopy(ct, 0, out, 1 + NONCE_BYTES, ct.length);
    return out;
  }

  /** @throws GeneralSecurityException for another key, another row's value, an unknown format or damage */
  TokenSet open(String tenant, String serverKey, byte[] sealed) throws GeneralSecurityException {
    if (sealed == null || sealed.length < 1 + NONCE_BYTES + TAG_BITS / 8 || sealed[0] != FORMAT) {
      throw new GeneralSecurityException("not a sealed token value");
    }
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 1, NONCE_BYTES));
    c.updateAAD(aad(tenant, serverKey));
    byte[] pt = c.doFinal(sealed, 1 + NONCE_BYTES, sealed.length - 1 - NONCE_BYTES);
    return TokenSet.fromJson(new JsonObject(Buffer.buffer(pt)));
  }

  private static byte[] aad(String tenant, String serverKey) {
    return (AAD_PREFIX + TokenStore.key(tenant, serverKey)).getBytes(StandardCharsets.UTF_8);
  }
}
