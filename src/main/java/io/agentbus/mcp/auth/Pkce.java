package io.agentbus.mcp.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/** PKCE (RFC 7636) with S256. */
final class Pkce {

  private Pkce() {
  }

  /** @return a fresh verifier: 64 random bytes, base64url (86 characters) */
  static String verifier() {
    return Secrets.random(64);
  }

  /** @return BASE64URL(SHA-256(verifier)) */
  static String challenge(String verifier) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
