package io.agentbus.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A blocking raw TCP client for the tests that play a hostile or broken HTTP client (half-sent
 * heads, bodies that stop, connections that say nothing). Used on the test thread only, never
 * on an event loop.
 */
final class RawHttp implements AutoCloseable {

  private final Socket socket;

  private RawHttp(Socket socket) {
    this.socket = socket;
  }

  /** @return a connection to the API on loopback */
  static RawHttp connect(int port) {
    try {
      return new RawHttp(new Socket("127.0.0.1", port));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the text as it is (ISO-8859-1). */
  RawHttp send(String text) {
    try {
      socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /**
   * Waits for the server to close the connection, reading and dropping whatever it sends.
   *
   * @return the milliseconds it took, or -1 when the connection was still open after {@code maxMs}
   */
  long awaitClosed(long maxMs) {
    return readToClose(maxMs, null);
  }

  /**
   * Reads until the server closes the connection (or {@code maxMs} pass).
   *
   * @return everything the server sent
   */
  String readAll(long maxMs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    readToClose(maxMs, out);
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  /**
   * Reads into {@code sink} (when not null) until the server closes the connection (a reset
   * counts) or {@code maxMs} pass.
   *
   * @return the milliseconds until the close, or -1 when the connection was still open
   */
  private long readToClose(long maxMs, ByteArrayOutputStream sink) {
    long start = System.nanoTime();
    long deadline = start + maxMs * 1_000_000;
    byte[] buf = new byte[4096];
    try {
      InputStream in = socket.getInputStream();
      while (true) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          return -1;
        }
        socket.setSoTimeout((int) left);
        int n = in.read(buf);
        if (n < 0) {
          return (System.nanoTime() - start) / 1_000_000;
        }
        if (sink != null) {
          sink.write(buf, 0, n);
        }
      }
    } catch (SocketTimeoutException e) {
      return -1;
    } catch (SocketException e) {
      return (System.nanoTime() - start) / 1_000_000;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads until {@code marker} has arrived.
   *
   * @return what was read, or {@code null} when the marker did not come within {@code maxMs}
   */
  String readUntil(String marker, long maxMs) {
    long deadline = System.nanoTime() + maxMs * 1_000_000;
    StringBuilder got = new StringBuilder();
    try {
      InputStream in = socket.getInputStream();
      while (got.indexOf(marker) < 0) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          return null;
        }
        socket.setSoTimeout((int) left);
        int b = in.read();
        if (b < 0) {
          return null;
        }
        got.append((char) b);
      }
      return got.toString();
    } catch (SocketTimeoutException | SocketException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
