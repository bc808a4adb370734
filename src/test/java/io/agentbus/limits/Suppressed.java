package io.agentbus.limits;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the summary lines a {@link LogRateLimit} writes, for tests of what a flood cost. */
public final class Suppressed {

  private static final Pattern SUMMARY = Pattern.compile("\\[([^\\]]+)\\] suppressed (\\d+) similar \\w+ in the last \\d+ s \\((.*)\\)$");

  private Suppressed() {
  }

  /**
   * @param lines captured log lines
   * @return the sum of the counts in the summary lines of {@code server} about {@code what}
   */
  public static long count(List<String> lines, String server, String what) {
    long sum = 0;
    for (String line : lines) {
      Matcher m = SUMMARY.matcher(line);
      if (m.find() && m.group(1).equals(server) && m.group(3).equals(what)) {
        sum += Long.parseLong(m.group(2));
      }
    }
    return sum;
  }

  /** @return how many of {@code lines} are summary lines */
  public static long summaries(List<String> lines) {
    return lines.stream().filter(l -> SUMMARY.matcher(l).find()).count();
  }
}
