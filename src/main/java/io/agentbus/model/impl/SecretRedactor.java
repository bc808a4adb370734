package io.agentbus.model.impl;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes an API key from text that came from upstream (error messages and types, request
 * ids, stream errors) before it reaches a log, an error, an event or a metric. An upstream
 * may echo the key in any case, percent-encoded, or cut short, so every run of key-like
 * characters is decoded and compared case-blind, and a run that holds a long enough piece of
 * the key is replaced whole. Immutable.
 */
final class SecretRedactor {

  static final String REPLACEMENT = "[redacted]";
  /** Key-like runs: what a key is made of, and percent escapes of it. */
  private static final Pattern RUN = Pattern.compile("(?:[A-Za-z0-9_\\-.~+/=]|%[0-9A-Fa-f]{2})+");
  /** A shorter piece of a key says too little to be worth hiding (and would hide ordinary words). */
  private static final int MIN_PIECE = 8;

  private final String secret;
  private final int piece;

  SecretRedactor(String secret) {
    this.secret = secret == null || secret.length() < 4 ? null : secret.toLowerCase(Locale.ROOT);
    this.piece = this.secret == null ? 0 : Math.min(this.secret.length(), Math.max(MIN_PIECE, this.secret.length() / 4));
  }

  /** @return the text with every copy of the key replaced, or the text itself when it holds none */
  String redact(String text) {
    if (text == null || secret == null || text.length() < piece) {
      return text;
    }
    Matcher m = RUN.matcher(text);
    StringBuilder out = null;
    int last = 0;
    while (m.find()) {
      if (m.end() - m.start() >= piece && holdsKey(decode(m.group()).toLowerCase(Locale.ROOT))) {
        out = out == null ? new StringBuilder(text.length()) : out;
        out.append(text, last, m.start()).append(REPLACEMENT);
        last = m.end();
      }
    }
    return out == null ? text : out.append(text, last, text.length()).toString();
  }

  private boolean holdsKey(String run) {
    if (run.length() < piece) {
      return false;
    }
    for (int i = 0; i + piece <= secret.length(); i++) {
      if (run.contains(secret.substring(i, i + piece))) {
        return true;
      }
    }
    return false;
  }

  private static String decode(String run) {
    if (run.indexOf('%') < 0) {
      return run;
    }
    StringBuilder sb = new StringBuilder(run.length());
    for (int i = 0; i < run.length(); i++) {
      char c = run.charAt(i);
      if (c == '%' && i + 2 < run.length()) {
        sb.append((char) Integer.parseInt(run.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
