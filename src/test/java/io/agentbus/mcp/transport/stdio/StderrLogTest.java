package io.agentbus.mcp.transport.stdio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What an exited server's stderr is summed up as. */
class StderrLogTest {

  private static String summary(String stderr) {
    StderrLog log = new StderrLog("t");
    log.drain(new ByteArrayInputStream(stderr.getBytes(StandardCharsets.UTF_8)));
    return log.summary();
  }

  @Test
  void nodeMissingModuleIsReportedByItsErrorLineNotTheVersionBanner() {
    String stderr = """
      node:internal/modules/cjs/loader:1210
        throw err;
        ^

      Error: Cannot find module '/w/interop/node_modules/x/dist/index.js'
          at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
          at Module._load (node:internal/modules/cjs/loader:1038:27)
          at node:internal/main/run_main_module:28:49 {
        code: 'MODULE_NOT_FOUND',
        requireStack: []
      }

      Node.js v20.20.2
      """;
    assertEquals("Error: Cannot find module '/w/interop/node_modules/x/dist/index.js'", summary(stderr));
  }

  @Test
  void severalErrorLinesAreKeptInOrderAfterOrdinaryLogging() {
    String stderr = """
      Secure MCP Filesystem Server starting
      Warning: Cannot access directory /nonexistent, skipping
      Error: None of the specified directories are accessible
      """;
    assertEquals("Warning: Cannot access directory /nonexistent, skipping / Error: None of the specified directories are accessible",
      summary(stderr));
  }

  @Test
  void javaExceptionsKeepTheCauseAndDropTheFrames() {
    String stderr = """
      Exception in thread "main" java.lang.IllegalStateException: no config
      \tat x.Main.main(Main.java:3)
      Caused by: java.io.FileNotFoundException: conf.json
      \tat x.Main.load(Main.java:9)
      \t... 1 more
      """;
    assertEquals("Exception in thread \"main\" java.lang.IllegalStateException: no config"
      + " / Caused by: java.io.FileNotFoundException: conf.json", summary(stderr));
  }

  @Test
  void withoutErrorLinesTheLastMeaningfulLineIsUsed() {
    assertEquals("boom", summary("starting\nboom\n\nNode.js v20.20.2\n"));
    assertNull(summary(""));
  }

  @Test
  void onlyTheTailIsKept() {
    StringBuilder stderr = new StringBuilder("Error: early and long forgotten\n");
    for (int i = 0; i < StderrLog.TAIL_LINES; i++) {
      stderr.append("line ").append(i).append('\n');
    }
    assertEquals("line " + (StderrLog.TAIL_LINES - 1), summary(stderr.toString()));
  }
}
