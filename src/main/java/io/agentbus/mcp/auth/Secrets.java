package io.agentbus.mcp.auth;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collection;

/** Random values for the flow (state, PKCE verifier) and scrubbing of secrets from text. */
final class Secrets {

  private static final SecureRandom RANDOM = new SecureRandom();

  private Secrets() {
  }

  /** @return {@code bytes} random bytes, base64url without padding */
  static String random(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** Replaces every known secret (at least 4 characters) in {@code text} with {@code ***}. */
  static String scrub(String text, Collection<String> secrets) {
    if (text == null || secrets == null) {
      return text;
    }
    String s = text;
    for (String secret : secrets) {
      if (secret != null && secret.length() >= 4) {
        s = s.replace(secret, "***");
      }
    }
    return s;
  }
}
