package io.agentbus.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium for the browser tests, driven by Debian's chromedriver: both are
 * named explicitly, so Selenium never looks for (or downloads) a driver or a browser of its
 * own. Where either is missing the browser tests are skipped with one line saying so, unless
 * {@code AGENTBUS_REQUIRE_BROWSER=1} (or {@code -Dagentbus.requireBrowser=true}), as
 * {@code .ci/run} sets it: then they fail.
 */
public final class Chromium {

  /** The browser: Debian package {@code chromium}, or {@code -Dagentbus.chromium=PATH}. */
  public static final Path BROWSER = Path.of(System.getProperty("agentbus.chromium", "/usr/bin/chromium"));
  /** Its WebDriver server: Debian package {@code chromium-driver}, or {@code -Dagentbus.chromedriver=PATH}. */
  public static final Path DRIVER = Path.of(System.getProperty("agentbus.chromedriver", "/usr/bin/chromedriver"));

  /**
   * The tests use WebDriver only, so no CDP bindings are on the classpath and Selenium's warning
   * that none matches the browser is noise. Held in a field: java.util.logging keeps loggers
   * weakly, and a collected one would forget its level.
   */
  private static final Logger CDP_FINDER = Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder");

  static {
    CDP_FINDER.setLevel(Level.SEVERE);
  }

  private Chromium() {
  }

  static boolean required() {
    String env = System.getenv("AGENTBUS_REQUIRE_BROWSER");
    return (env != null && !env.isBlank() && !env.equals("0") && !env.equalsIgnoreCase("false"))
      || Boolean.getBoolean("agentbus.requireBrowser");
  }

  /** Skips (or, when required, fails) the calling test when the browser or its driver is not installed. */
  public static void requireInstalled() {
    List<String> missing = new ArrayList<>();
    for (Path p : List.of(BROWSER, DRIVER)) {
      if (!Files.isExecutable(p)) {
        missing.add(p.toString());
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    String what = String.join(" and ", missing) + (missing.size() == 1 ? " is" : " are")
      + " not installed (Debian packages chromium and chromium-driver, which .ci/run installs)";
    if (required()) {
      fail("AGENTBUS_REQUIRE_BROWSER is set but " + what);
    }
    String why = "Browser tests skipped: " + what + "; set AGENTBUS_REQUIRE_BROWSER=1 to fail instead";
    System.err.println(why);
    Assumptions.abort(why);
  }

  /**
   * Starts a headless browser with a fresh profile in {@code profile}, its window
   * {@code width}×{@code height}. Its background networking is off: it only talks to the pages
   * the test opens.
   */
  public static ChromeDriver start(Path profile, int width, int height) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(BROWSER.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
      "--disable-quic", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-extensions",
      "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=" + width + "," + height);
    ChromeDriverService service = new ChromeDriverService.Builder()
      .usingDriverExecutable(DRIVER.toFile())
      .usingAnyFreePort()
      .build();
    return new ChromeDriver(service, options);
  }
}
