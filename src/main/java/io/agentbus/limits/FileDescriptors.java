package io.agentbus.limits;

import java.lang.management.ManagementFactory;

/** The process's file-descriptor limit, which connection limits are sized from. */
public final class FileDescriptors {

  private FileDescriptors() {
  }

  /** @return the process's file-descriptor limit, or {@code -1} where the JVM does not tell */
  public static long max() {
    try {
      return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix
          ? unix.getMaxFileDescriptorCount() : -1;
    } catch (LinkageError e) {
      return -1;
    }
  }
}
