package io.agentbus.demo;

/**
 * Evaluates arithmetic expressions: numbers, {@code + - * / % ^}, unary minus and
 * parentheses. A small recursive-descent parser; nothing is ever executed as code.
 */
final class Calculator {

  private final String src;
  private int pos;

  private Calculator(String src) {
    this.src = src;
  }

  /** @throws IllegalArgumentException with the position of the problem */
  static double evaluate(String expression) {
    if (expression.length() > 1000) {
      throw new IllegalArgumentException("expression is longer than 1000 characters");
    }
    Calculator c = new Calculator(expression);
    double v = c.sum();
    c.skipSpaces();
    if (c.pos < c.src.length()) {
      throw new IllegalArgumentException("unexpected '" + c.src.charAt(c.pos) + "' at position " + (c.pos + 1));
    }
    return v;
  }

  private double sum() {
    double v = product();
    while (true) {
      if (eat('+')) {
        v += product();
      } else if (eat('-')) {
        v -= product();
      } else {
        return v;
      }
    }
  }

  private double product() {
    double v = power();
    while (true) {
      if (eat('*')) {
        v *= power();
      } else if (eat('/')) {
        double d = power();
        if (d == 0) {
          throw new IllegalArgumentException("division by zero");
        }
        v /= d;
      } else if (eat('%')) {
        v %= power();
      } else {
        return v;
      }
    }
  }

  private double power() {
    double base = unary();
    return eat('^') ? Math.pow(base, power()) : base;
  }

  private double unary() {
    if (eat('-')) {
      return -unary();
    }
    if (eat('+')) {
      return unary();
    }
    if (eat('(')) {
      double v = sum();
      if (!eat(')')) {
        throw new IllegalArgumentException("missing ')' at position " + (pos + 1));
      }
      return v;
    }
    return number();
  }

  private double number() {
    skipSpaces();
    int start = pos;
    while (pos < src.length() && (Character.isDigit(src.charAt(pos)) || src.charAt(pos) == '.')) {
      pos++;
    }
    if (start == pos) {
      throw new IllegalArgumentException(pos < src.length()
        ? "unexpected '" + src.charAt(pos) + "' at position " + (pos + 1) : "expression ends too early");
    }
    try {
      return Double.parseDouble(src.substring(start, pos));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad number '" + src.substring(start, pos) + "'");
    }
  }

  private boolean eat(char c) {
    skipSpaces();
    if (pos < src.length() && src.charAt(pos) == c) {
      pos++;
      return true;
    }
    return false;
  }

  private void skipSpaces() {
    while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
      pos++;
    }
  }
}
