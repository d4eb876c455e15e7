package dev.zaro.arrow.store;

import java.util.Map;

/**
 * The small part of Jinja that kerchunk references use: {@code {{expr}}} in keys, urls, offsets and
 * lengths, where {@code expr} is a variable (a template or a {@code gen} dimension), an integer or
 * a quoted string, combined with {@code + - * / // %} and parentheses. Integers stay integers
 * except under {@code /}, which gives a float as in Python ({@code 10/2} renders as {@code 5.0}).
 */
final class ReferenceTemplates {
  private ReferenceTemplates() {}

  /** Thrown for a malformed template or an unknown variable. */
  static final class TemplateException extends RuntimeException {
    TemplateException(String message) {
      super(message);
    }
  }

  /** Renders every {@code {{...}}} of {@code text} with {@code vars}. */
  static String render(String text, Map<String, Object> vars) {
    int open = text.indexOf("{{");
    if (open < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (open >= 0) {
      int close = text.indexOf("}}", open + 2);
      if (close < 0) {
        throw new TemplateException("'{{' without '}}' in '" + text + "'");
      }
      out.append(text, at, open);
      out.append(format(new Parser(text.substring(open + 2, close), vars).parseAll()));
      at = close + 2;
      open = text.indexOf("{{", at);
    }
    return out.append(text.substring(at)).toString();
  }

  static String format(Object value) {
    if (value instanceof Double d) {
      if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e16) {
        return Long.toString(d.longValue()) + ".0";
      }
      return Double.toString(d);
    }
    return String.valueOf(value);
  }

  private static final class Parser {
    private final String s;
    private final Map<String, Object> vars;
    private int i;

    Parser(String s, Map<String, Object> vars) {
      this.s = s;
      this.vars = vars;
    }

    Object parseAll() {
      Object v = sum();
      skip();
      if (i != s.length()) {
        throw new TemplateException("cannot read '{{" + s + "}}' at '" + s.substring(i) + "'");
      }
      return v;
    }

    private void skip() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }

    private boolean eat(String token) {
      skip();
      if (s.startsWith(token, i)) {
        i += token.length();
        return true;
      }
      return false;
    }

    private Object sum() {
      Object v = product();
      while (true) {
        if (eat("+")) {
          Object r = product();
          v = v instanceof String || r instanceof String ? format(v) + format(r) : arith('+', v, r);
        } else if (eat("-")) {
          v = arith('-', v, product());
        } else {
          return v;
        }
      }
    }

    private Object product() {
      Object v = unary();
      while (true) {
        if (eat("//")) {
          v = arith('/', v, unary());
        } else if (eat("*")) {
          v = arith('*', v, unary());
        } else if (eat("/")) {
          Object r = unary();
          v = number(v).doubleValue() / number(r).doubleValue();
        } else if (eat("%")) {
          v = arith('%', v, unary());
        } else {
          return v;
        }
      }
    }

    private Object unary() {
      if (eat("-")) {
        Object v = unary();
        return v instanceof Double d ? (Object) (-d) : (Object) Math.negateExact((Long) number(v));
      }
      if (eat("+")) {
        return number(unary());
      }
      return atom();
    }

    private Object atom() {
      skip();
      if (i >= s.length()) {
        throw new TemplateException("'{{" + s + "}}' ends early");
      }
      char c = s.charAt(i);
      if (c == '(') {
        i++;
        Object v = sum();
        if (!eat(")")) {
          throw new TemplateException("missing ')' in '{{" + s + "}}'");
        }
        return v;
      }
      if (c == '"' || c == '\'') {
        int end = s.indexOf(c, i + 1);
        if (end < 0) {
          throw new TemplateException("unclosed string in '{{" + s + "}}'");
        }
        String str = s.substring(i + 1, end);
        i = end + 1;
        return str;
      }
      if (Character.isDigit(c)) {
        int start = i;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
          i++;
        }
        String num = s.substring(start, i);
        return num.contains(".") ? (Object) Double.parseDouble(num) : (Object) Long.parseLong(num);
      }
      if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) {
          i++;
        }
        String name = s.substring(start, i);
        Object v = vars.get(name);
        if (v == null) {
          throw new TemplateException("unknown name '" + name + "' in '{{" + s + "}}'");
        }
        return v;
      }
      throw new TemplateException("unexpected '" + c + "' in '{{" + s + "}}'");
    }

    private Number number(Object v) {
      if (v instanceof Long || v instanceof Double) {
        return (Number) v;
      }
      if (v instanceof Integer n) {
        return n.longValue();
      }
      try {
        return Long.parseLong(String.valueOf(v).trim());
      } catch (NumberFormatException e) {
        throw new TemplateException("'" + v + "' is not a number in '{{" + s + "}}'");
      }
    }

    private Object arith(char op, Object a, Object b) {
      Number x = number(a);
      Number y = number(b);
      if (x instanceof Double || y instanceof Double) {
        double p = x.doubleValue();
        double q = y.doubleValue();
        return switch (op) {
          case '+' -> p + q;
          case '-' -> p - q;
          case '*' -> p * q;
          case '/' -> Math.floor(p / q);
          default -> p - q * Math.floor(p / q);
        };
      }
      long p = x.longValue();
      long q = y.longValue();
      if ((op == '/' || op == '%') && q == 0) {
        throw new TemplateException("division by zero in '{{" + s + "}}'");
      }
      return switch (op) {
        case '+' -> Math.addExact(p, q);
        case '-' -> Math.subtractExact(p, q);
        case '*' -> Math.multiplyExact(p, q);
        case '/' -> Math.floorDiv(p, q);
        default -> Math.floorMod(p, q);
      };
    }
  }
}
