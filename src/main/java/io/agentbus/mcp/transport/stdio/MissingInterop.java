package io.agentbus.mcp.transport.stdio;

import io.agentbus.mcp.McpServerOptions;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Recognises a server configured to run one of the pinned MCP servers under
 * {@code interop/node_modules} before they were installed (a fresh clone that has not run
 * {@code mvn verify}), and says how to install them instead of letting Node.js print a stack
 * trace. Called off the event loop (it looks at the file system).
 */
final class MissingInterop {

  static final String MARKER = "interop/node_modules/";

  private MissingInterop() {
  }

  /** @return a message naming the missing file and the install command, or {@code null} */
  static String check(McpServerOptions options) {
    List<String> words = new ArrayList<>();
    words.add(options.getCommand());
    words.addAll(options.getArgs());
    Path base = Path.of(options.getCwd() != null ? options.getCwd() : "").toAbsolutePath();
    for (String word : words) {
      String unified = word == null ? "" : word.replace('\\', '/');
      int at = unified.indexOf(MARKER);
      if (at < 0) {
        continue;
      }
      Path file;
      try {
        file = base.resolve(word);
      } catch (InvalidPathException e) {
        continue;
      }
      if (!Files.exists(file)) {
        Path interop = shortest(base.resolve(unified.substring(0, at) + "interop").normalize());
        return "cannot start server '" + options.getName() + "': " + file.normalize() + " does not exist: the pinned MCP"
          + " servers are not installed; run `bash " + interop.resolve("install.sh") + "` (or `npm ci` in " + interop
          + "; `mvn verify` does it too)";
      }
    }
    return null;
  }

  /** @return the path relative to the working directory when it lies below it */
  private static Path shortest(Path path) {
    Path here = Path.of("").toAbsolutePath();
    return path.startsWith(here) && !path.equals(here) ? here.relativize(path) : path;
  }
}
