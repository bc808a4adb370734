package io.agentbus.mcp.auth;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** URL rules of the authorization spec: canonical resource URIs, origins, well-known paths. */
final class Urls {

  private Urls() {
  }

  static boolean isLoopback(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    return h.equals("localhost") || h.equals("127.0.0.1") || h.equals("[::1]") || h.equals("::1");
  }

  /** @return the URI, or {@code null} when it is not an absolute http(s) URL with a host */
  static URI parseHttp(String s) {
    if (s == null) {
      return null;
    }
    try {
      URI u = URI.create(s.trim());
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      return (scheme.equals("http") || scheme.equals("https")) && u.getHost() != null ? u : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** https, or http on a loopback host: where endpoints and issuers may live. */
  static boolean secureOrLoopback(URI u) {
    return "https".equalsIgnoreCase(u.getScheme()) || isLoopback(u.getHost());
  }

  static int port(URI u) {
    if (u.getPort() >= 0) {
      return u.getPort();
    }
    return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
  }

  /** @return scheme://host[:port] in lower case, the default port left out */
  static String origin(URI u) {
    String scheme = u.getScheme().toLowerCase(Locale.ROOT);
    boolean dflt = u.getPort() < 0 || scheme.equals("https") && u.getPort() == 443 || scheme.equals("http") && u.getPort() == 80;
    return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + (dflt ? "" : ":" + u.getPort());
  }

  static boolean sameOrigin(URI a, URI b) {
    return origin(a).equals(origin(b));
  }

  /** The canonical resource URI (RFC 8707, MCP): origin + path without a trailing slash, no query or fragment. */
  static String canonicalResource(URI u) {
    String path = u.getRawPath() == null ? "" : u.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return origin(u) + path;
  }

  /**
   * Whether a protected-resource metadata {@code resource} covers the server URL: the same
   * origin, and a path that is the server's path or a parent of it.
   */
  static boolean resourceCovers(URI resource, URI server) {
    if (!sameOrigin(resource, server) || resource.getRawFragment() != null) {
      return false;
    }
    String r = canonicalResource(resource);
    String s = canonicalResource(server);
    return s.equals(r) || s.startsWith(r + "/");
  }

  /** Strips trailing slashes for issuer comparison. */
  static String trimSlash(String s) {
    String t = s;
    while (t.endsWith("/")) {
      t = t.substring(0, t.length() - 1);
    }
    return t;
  }

  /** Protected-resource metadata URLs to try for a server URL: path-specific, then root. */
  static List<String> resourceMetadataCandidates(URI server) {
    List<String> out = new ArrayList<>();
    String path = server.getRawPath() == null ? "" : trimSlash(server.getRawPath());
    if (!path.isEmpty()) {
      out.add(origin(server) + "/.well-known/oauth-protected-resource" + path);
    }
    out.add(origin(server) + "/.well-known/oauth-protected-resource");
    return out;
  }

  /** Authorization-server metadata URLs for an issuer (2025-11-25 order, with path insertion). */
  static List<String> authServerMetadataCandidates(URI issuer) {
    List<String> out = new ArrayList<>();
    String path = issuer.getRawPath() == null ? "" : trimSlash(issuer.getRawPath());
    String o = origin(issuer);
    if (path.isEmpty()) {
      out.add(o + "/.well-known/oauth-authorization-server");
      out.add(o + "/.well-known/openid-configuration");
    } else {
      out.add(o + "/.well-known/oauth-authorization-server" + path);
      out.add(o + "/.well-known/openid-configuration" + path);
      out.add(o + path + "/.well-known/openid-configuration");
    }
    return out;
  }
}
