package io.agentbus.config;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP server list from an {@code mcp.json} file: the {@code mcpServers} object of
 * Claude Desktop and Cursor, or the {@code servers} object of VS Code. Keys Agentbus does not
 * know are ignored with a warning naming each (and the nearest known name, for typos).
 */
public final class McpConfig {

  private static final Logger LOG = LoggerFactory.getLogger(McpConfig.class);

  private final List<McpServerOptions> servers;
  private final List<String> unknownFields;

  public McpConfig(List<McpServerOptions> servers) {
    this(servers, List.of());
  }

  private McpConfig(List<McpServerOptions> servers, List<String> unknownFields) {
    this.servers = Collections.unmodifiableList(new ArrayList<>(servers));
    this.unknownFields = List.copyOf(unknownFields);
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
      return read(json, expander, file.toString());
    } catch (ConfigException e) {
      throw new ConfigException(file + ": " + e.getMessage());
    }
  }

  /** Reads the parsed document; see {@link #load}. */
  public static McpConfig fromJson(JsonObject json, EnvExpander expander) {
    return read(json, expander, "MCP config");
  }

  private static McpConfig read(JsonObject json, EnvExpander expander, String source) {
    String key = json.containsKey("mcpServers") ? "mcpServers" : "servers";
    Object servers = json.getValue(key);
    if (servers == null) {
      throw new ConfigException("no 'mcpServers' object");
    }
    if (!(servers instanceof JsonObject obj)) {
      throw new ConfigException("'" + key + "' must be an object of server entries");
    }
    List<String> unknown = new ArrayList<>();
    for (String field : json.fieldNames()) {
      if (!field.equals(key)) {
        unknown.add("unknown field '" + field + "' is ignored");
      }
    }
    List<McpServerOptions> list = new ArrayList<>();
    for (Map.Entry<String, Object> e : obj) {
      McpServerOptions options = McpServerOptions.fromJson(e.getKey(), e.getValue(), expander);
      options.unknownFields().forEach(u -> unknown.add("server '" + options.getName() + "': " + u));
      list.add(options);
    }
    unknown.forEach(u -> LOG.warn("{}: {}", source, u));
    return new McpConfig(list, unknown);
  }

  /**
   * @return one line per key of the document that Agentbus does not read (it was ignored and
   *     logged as a warning), e.g. {@code server 'fs': unknown field 'timeout' is ignored (did
   *     you mean 'timeoutMs'?)}
   */
  public List<String> unknownFields() {
    return unknownFields;
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
