package io.agentbus.cli;

import io.agentbus.demo.DemoMcpServer;
import java.io.IOException;

/** {@code agentbus demo-server}: the built-in demo MCP server on stdin/stdout. */
public final class DemoServerCommand {

  private DemoServerCommand() {
  }

  public static int run() {
    try {
      DemoMcpServer.main(new String[0]);
      return Cli.OK;
    } catch (IOException e) {
      System.err.println("agentbus demo-server: " + e.getMessage());
      return Cli.FAILURE;
    }
  }
}
