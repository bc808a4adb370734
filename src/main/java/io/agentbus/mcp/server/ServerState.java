package io.agentbus.mcp.server;

/** The supervised state of one configured MCP server. */
public enum ServerState {
  /** The first connection attempt is running. */
  STARTING,
  /** Connected and initialized: calls are served. */
  READY,
  /** The server exited or failed to start; a restart is scheduled. */
  RESTARTING,
  /** Repeated failures: calls fail at once; restarts continue at the slowest pace. */
  DOWN,
  /** The verticle was undeployed. */
  STOPPED
}
