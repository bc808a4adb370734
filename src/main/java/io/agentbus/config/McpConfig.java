package io.agentbus.config;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The MCP server list from an {@code mcp.json} file: the {@code mcpServers} object of
 * Claude Desktop and Cursor, or the {@code servers} object of VS Code.
 */
public final class McpConfig {

  private final List<McpServerOptions> servers;

  public McpConfig(List<McpServerOptions> servers) {
    this.servers = Collections.unmodifiableList(new ArrayList<>(servers));
  }

  /**
   * Reads and checks a config file (a blocking read: call it at start-up or from a worker).
   *
   * @throws ConfigException naming the file, server and field at fault
   */
  public static McpConfig load(Path file, EnvExpander expander) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read the MCP config (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
    }
    JsonObject json;
    try {
      json = new JsonObject(text);
    } catch (DecodeException e) {
      throw new ConfigException(file + ": not valid JSON: " + e.getMessage());
    }
    try {
      return fromJson(json, expander);
    } catch (ConfigException e) {
      throw new ConfigException(file + ": " + e.getMessage());
    }
  }

  /** Reads the parsed document; see {@link #load}. */
  public static McpConfig fromJson(JsonObject json, EnvExpander expander) {
    Object servers = json.containsKey("mcpServers") ? json.getValue("mcpServers") : json.getValue("servers");
    if (servers == null) {
      throw new ConfigException("no 'mcpServers' object");
    }
    if (!(servers instanceof JsonObject obj)) {
      throw new ConfigException("'mcpServers' must be an object of server entries");
    }
    List<McpServerOptions> list = new ArrayList<>();
    for (Map.Entry<String, Object> e : obj) {
      list.add(McpServerOptions.fromJson(e.getKey(), e.getValue(), expander));
    }
    return new McpConfig(list);
  }

  /** @return every configured server, in file order, disabled ones included */
  public List<McpServerOptions> servers() {
    return servers;
  }

  /** @return the servers that are not {@code disabled} */
  public List<McpServerOptions> enabledServers() {
    return servers.stream().filter(s -> !s.isDisabled()).toList();
  }
}
