package io.agentbus.options;

/** A configuration problem; the message names the file, server and field at fault. */
public final class ConfigException extends RuntimeException {

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
