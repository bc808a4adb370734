package io.agentbus.catalog;

import java.util.regex.Pattern;

/**
 * Runs {@code java.util.regex} under a deadline. A pattern from an untrusted schema can
 * backtrack for hours ({@code ^(.*a){12}$}) or overflow the stack ({@code ^(a|b)*$} on a long
 * string); the matcher reads its input through a {@link CharSequence} that checks the clock,
 * so a match that runs past its deadline stops with {@link BudgetExceeded}, and a stack
 * overflow becomes one too.
 */
final class BoundedMatch {

  /** Thrown when a match could not finish within its budget. */
  static final class BudgetExceeded extends RuntimeException {
    BudgetExceeded(String why) {
      super(why, null, false, false);
    }
  }

  private BoundedMatch() {
  }

  /**
   * @return whether {@code pattern} is found in {@code text} (JSON Schema's unanchored match)
   * @throws BudgetExceeded if it did not finish before {@code deadlineNanos} or overflowed the stack
   */
  static boolean find(Pattern pattern, String text, long deadlineNanos) {
    try {
      return pattern.matcher(new DeadlineChars(text, 0, text.length(), deadlineNanos)).find();
    } catch (StackOverflowError e) {
      throw new BudgetExceeded("the match needs too deep a recursion");
    }
  }

  private static final class DeadlineChars implements CharSequence {
    private final String text;
    private final int start;
    private final int end;
    private final long deadlineNanos;
    private int reads;

    DeadlineChars(String text, int start, int end, long deadlineNanos) {
      this.text = text;
      this.start = start;
      this.end = end;
      this.deadlineNanos = deadlineNanos;
    }

    @Override
    public char charAt(int index) {
      if ((++reads & 0x3FF) == 0 && System.nanoTime() - deadlineNanos > 0) {
        throw new BudgetExceeded("the match did not finish in time");
      }
      return text.charAt(start + index);
    }

    @Override
    public int length() {
      return end - start;
    }

    @Override
    public CharSequence subSequence(int from, int to) {
      return new DeadlineChars(text, start + from, start + to, deadlineNanos);
    }

    @Override
    public String toString() {
      return text.substring(start, end);
    }
  }
}
