package io.agentbus.mcp.auth;

import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Locale;

/**
 * A {@code private_key_jwt} client assertion (RFC 7523 section 2.2): {@code iss} and
 * {@code sub} the client id, {@code aud} the authorization server's issuer, valid for five
 * minutes, signed ES256 or RS256 with a PKCS#8 PEM key.
 */
final class JwtAssertion {

  static final String TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
  private static final long LIFETIME_S = 300;

  private JwtAssertion() {
  }

  /**
   * @throws IllegalArgumentException when the key cannot be read or signing fails (the message never shows the key)
   */
  static String sign(String clientId, String audience, String pem, String algorithm) {
    PrivateKey key = readKey(pem);
    String alg = algorithm != null ? algorithm.toUpperCase(Locale.ROOT) : key instanceof ECPrivateKey ? "ES256" : "RS256";
    long now = System.currentTimeMillis() / 1000;
    JsonObject header = new JsonObject().put("alg", alg).put("typ", "JWT");
    JsonObject claims = new JsonObject().put("iss", clientId).put("sub", clientId).put("aud", audience)
      .put("iat", now).put("exp", now + LIFETIME_S).put("jti", Secrets.random(16));
    String input = b64(header.encode().getBytes(StandardCharsets.UTF_8)) + "." + b64(claims.encode().getBytes(StandardCharsets.UTF_8));
    try {
      Signature s = Signature.getInstance(alg.equals("ES256") ? "SHA256withECDSAinP1363Format" : "SHA256withRSA");
      s.initSign(key);
      s.update(input.getBytes(StandardCharsets.US_ASCII));
      return input + "." + b64(s.sign());
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot sign the client assertion with " + alg + " (" + e.getClass().getSimpleName()
        + "): does 'oauth.signingAlgorithm' fit the key?");
    }
  }

  private static PrivateKey readKey(String pem) {
    String body = pem.replaceAll("-----(BEGIN|END) [A-Z ]+-----", "").replaceAll("\\s", "");
    byte[] der;
    try {
      der = Base64.getDecoder().decode(body);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'oauth.privateKey' is not a PEM key");
    }
    for (String type : new String[] {"EC", "RSA"}) {
      try {
        return KeyFactory.getInstance(type).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // try the next type
      }
    }
    throw new IllegalArgumentException("'oauth.privateKey' is not a PKCS#8 EC or RSA private key (BEGIN PRIVATE KEY)");
  }

  private static String b64(byte[] b) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
