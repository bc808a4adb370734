package io.agentbus.cluster;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of {@code serve --cluster} ({@code cluster} in {@code conf/agent.json}): joining a
 * Hazelcast cluster through Vert.x's cluster manager. The defaults work on one machine with no
 * network set-up: TCP/IP join on 127.0.0.1 (multicast off), members on the ports from 5701 up.
 * For real deployments, list the members (or give a Hazelcast XML/YAML file) and the address
 * this node is reached at.
 *
 * <pre>{@code
 * {"enabled": false, "name": "agentbus", "host": "127.0.0.1", "port": 5701,
 *  "publicHost": null, "members": ["127.0.0.1"], "configFile": null,
 *  "roles": ["http", "conversation", "mcp"], "nodeName": null, "failureDetectionMs": 5000}
 * }</pre>
 */
public class ClusterOptions {

  /** What a node runs. */
  public enum Role {
    /** The HTTP API. */
    HTTP,
    /** Conversation verticles: runs turns. */
    CONVERSATION,
    /** The MCP server verticles of {@code mcp.json}. */
    MCP;

    /** @return the name used in JSON and on the command line */
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** @return the role named {@code name} ({@code http}, {@code conversation}, {@code mcp}) */
    public static Role parse(String name) {
      for (Role r : values()) {
        if (r.jsonName().equals(name == null ? null : name.trim())) {
          return r;
        }
      }
      throw new IllegalArgumentException("unknown role '" + name + "' (roles are http, conversation, mcp)");
    }
  }

  /** Default cluster name: only members with the same name join each other. */
  public static final String DEFAULT_NAME = "agentbus";
  /** Default address the member binds and advertises: loopback, so nothing is exposed by accident. */
  public static final String DEFAULT_HOST = "127.0.0.1";
  /** Default Hazelcast member port (the next free one is taken when it is in use). */
  public static final int DEFAULT_PORT = 5701;
  /** Default join list: the members on this machine. */
  public static final List<String> DEFAULT_MEMBERS = List.of("127.0.0.1");
  /**
   * Default time after which a member that stopped answering heartbeats is removed, its bus
   * addresses with it (Hazelcast's own default is 60 s; a node killed outright is usually
   * noticed sooner, when its connections close).
   */
  public static final long DEFAULT_FAILURE_DETECTION_MS = 5_000;

  private boolean enabled;
  private String name = DEFAULT_NAME;
  private String host = DEFAULT_HOST;
  private int port = DEFAULT_PORT;
  private String publicHost;
  private List<String> members = DEFAULT_MEMBERS;
  private String configFile;
  private Set<Role> roles = EnumSet.allOf(Role.class);
  private String nodeName;
  private long failureDetectionMs = DEFAULT_FAILURE_DETECTION_MS;

  public ClusterOptions() {
  }

  public ClusterOptions(ClusterOptions other) {
    this.enabled = other.enabled;
    this.name = other.name;
    this.host = other.host;
    this.port = other.port;
    this.publicHost = other.publicHost;
    this.members = other.members;
    this.configFile = other.configFile;
    this.roles = EnumSet.copyOf(other.roles);
    this.nodeName = other.nodeName;
    this.failureDetectionMs = other.failureDetectionMs;
  }

  /**
   * @param json the {@code cluster} object (fields as in the class comment, all optional)
   * @throws IllegalArgumentException naming the field that is wrong
   */
  public ClusterOptions(JsonObject json) {
    setEnabled(json.getBoolean("enabled", false));
    setName(json.getString("name", DEFAULT_NAME));
    setHost(json.getString("host", DEFAULT_HOST));
    setPort(json.getInteger("port", DEFAULT_PORT));
    setPublicHost(json.getString("publicHost"));
    if (json.getValue("members") instanceof JsonArray m) {
      List<String> list = new ArrayList<>();
      m.forEach(o -> list.add(String.valueOf(o)));
      setMembers(list);
    }
    setConfigFile(json.getString("configFile"));
    if (json.getValue("roles") instanceof JsonArray r) {
      List<Role> list = new ArrayList<>();
      r.forEach(o -> list.add(Role.parse(String.valueOf(o))));
      setRoles(list);
    }
    setNodeName(json.getString("nodeName"));
    setFailureDetectionMs(json.getLong("failureDetectionMs", DEFAULT_FAILURE_DETECTION_MS));
  }

  /** @return the JSON form (every field, defaults included) */
  public JsonObject toJson() {
    JsonArray r = new JsonArray();
    roles.forEach(x -> r.add(x.jsonName()));
    return new JsonObject().put("enabled", enabled).put("name", name).put("host", host).put("port", port)
      .put("publicHost", publicHost).put("members", new JsonArray(new ArrayList<>(members))).put("configFile", configFile)
      .put("roles", r).put("nodeName", nodeName).put("failureDetectionMs", failureDetectionMs);
  }

  /**
   * @param roles a comma-separated list ({@code http,conversation,mcp})
   * @return those roles
   * @throws IllegalArgumentException for an unknown or missing role
   */
  public static Set<Role> parseRoles(String roles) {
    List<Role> list = new ArrayList<>();
    for (String r : Objects.requireNonNull(roles, "roles").split(",")) {
      if (!r.isBlank()) {
        list.add(Role.parse(r));
      }
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("--roles needs at least one of http, conversation, mcp");
    }
    return EnumSet.copyOf(list);
  }

  /** @return whether {@code serve} joins the cluster */
  public boolean isEnabled() {
    return enabled;
  }

  public ClusterOptions setEnabled(boolean enabled) {
    this.enabled = enabled;
    return this;
  }

  /** @return the cluster name: members with another name never join this one */
  public String getName() {
    return name;
  }

  public ClusterOptions setName(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    this.name = name;
    return this;
  }

  /** @return the interface the member and the event bus bind to */
  public String getHost() {
    return host;
  }

  public ClusterOptions setHost(String host) {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be empty");
    }
    this.host = host;
    return this;
  }

  /** @return the Hazelcast member port (when in use, the next free one is taken) */
  public int getPort() {
    return port;
  }

  public ClusterOptions setPort(int port) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be from 1 to 65535");
    }
    this.port = port;
    return this;
  }

  /** @return the address the other members reach this one at, or {@code null} for {@link #getHost()} */
  public String getPublicHost() {
    return publicHost;
  }

  public ClusterOptions setPublicHost(String publicHost) {
    this.publicHost = publicHost == null || publicHost.isBlank() ? null : publicHost;
    return this;
  }

  /** @return the TCP/IP join list: {@code host} or {@code host:port} */
  public List<String> getMembers() {
    return members;
  }

  public ClusterOptions setMembers(List<String> members) {
    if (members == null || members.isEmpty() || members.stream().anyMatch(m -> m == null || m.isBlank())) {
      throw new IllegalArgumentException("members must list at least one host or host:port");
    }
    this.members = List.copyOf(members);
    return this;
  }

  /**
   * @return a Hazelcast XML or YAML configuration file that replaces the network settings above
   *     (cluster name, join, interfaces), or {@code null}
   */
  public String getConfigFile() {
    return configFile;
  }

  public ClusterOptions setConfigFile(String configFile) {
    this.configFile = configFile == null || configFile.isBlank() ? null : configFile;
    return this;
  }

  /** @return what this node runs */
  public Set<Role> getRoles() {
    return EnumSet.copyOf(roles);
  }

  /** @return whether this node runs {@code role} */
  public boolean has(Role role) {
    return roles.contains(role);
  }

  public ClusterOptions setRoles(Collection<Role> roles) {
    if (roles == null || roles.isEmpty()) {
      throw new IllegalArgumentException("roles must name at least one of http, conversation, mcp");
    }
    this.roles = EnumSet.copyOf(roles);
    return this;
  }

  /** @return this node's name in {@code /health} and in the metrics' {@code node} label, or {@code null} for host:pid */
  public String getNodeName() {
    return nodeName;
  }

  public ClusterOptions setNodeName(String nodeName) {
    this.nodeName = nodeName == null || nodeName.isBlank() ? null : nodeName;
    return this;
  }

  /** @return {@link #getNodeName()}, or {@code <host>:<pid>} */
  public String effectiveNodeName() {
    return nodeName != null ? nodeName : (publicHost != null ? publicHost : host) + ":" + ProcessHandle.current().pid();
  }

  /** @return after how long without heartbeats a member is removed from the cluster */
  public long getFailureDetectionMs() {
    return failureDetectionMs;
  }

  public ClusterOptions setFailureDetectionMs(long failureDetectionMs) {
    if (failureDetectionMs < 1_000) {
      throw new IllegalArgumentException("failureDetectionMs must be at least 1000");
    }
    this.failureDetectionMs = failureDetectionMs;
    return this;
  }

  /** @return the roles as their JSON names, in a stable order */
  public List<String> roleNames() {
    return roles.stream().map(Role::jsonName).toList();
  }
}
