package io.agentbus.testing;

import io.agentbus.mcp.McpServerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Launch settings for the real, pinned third-party MCP servers under {@code interop/}. */
public final class InteropServers {

  private InteropServers() {
  }

  /** @return the interop directory (set by the build; falls back to the working dir) */
  public static Path dir() {
    return Path.of(System.getProperty("agentbus.interop.dir", "interop")).toAbsolutePath();
  }

  private static String script(String pkg) {
    Path p = dir().resolve("node_modules/@modelcontextprotocol/" + pkg + "/dist/index.js");
    if (!Files.isRegularFile(p)) {
      throw new IllegalStateException(p + " is missing: run `bash interop/install.sh` (mvn verify does)");
    }
    return p.toString();
  }

  /** server-everything over stdio. */
  public static McpServerOptions everythingStdio(String name) {
    return new McpServerOptions().setName(name).setCommand("node")
      .setArgs(List.of(script("server-everything"), "stdio"));
  }

  /** server-filesystem over stdio, allowed to touch {@code roots}. */
  public static McpServerOptions filesystem(String name, Path... roots) {
    List<String> args = new ArrayList<>();
    args.add(script("server-filesystem"));
    for (Path r : roots) {
      args.add(r.toString());
    }
    return new McpServerOptions().setName(name).setCommand("node").setArgs(args);
  }

  /** A Java main class from the test classpath, run as a child JVM speaking stdio. */
  public static McpServerOptions javaMain(String name, Class<?> main, String... args) {
    List<String> argv = new ArrayList<>();
    argv.add("-cp");
    argv.add(System.getProperty("java.class.path"));
    argv.add("-Xshare:auto");
    argv.add("-XX:TieredStopAtLevel=1");
    argv.add(main.getName());
    argv.addAll(List.of(args));
    return new McpServerOptions().setName(name)
      .setCommand(Path.of(System.getProperty("java.home"), "bin", "java").toString())
      .setArgs(argv);
  }
}
