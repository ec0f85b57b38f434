package io.berthsched.berth.client;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes quantities ("500m", "1.5Gi", "2k", "1e3") and Berth's canonical integers: cpu in
 * millicores, memory and storage in bytes, anything else ("pods", "example.com/gpu") as a count.
 * The same rules, and the same test table (clients/testdata/quantities.json), as the Go, Python
 * and TypeScript clients.
 */
public final class Quantity {
  static final String INVALID =
      "want a number and an optional suffix (n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei"
          + " or an exponent such as e3)";
  static final String OUT_OF_RANGE = "out of range";
  static final String EMPTY = "empty";

  private static final Pattern NUMBER = Pattern.compile("([0-9]*)(?:\\.([0-9]*))?(.*)", Pattern.DOTALL);
  private static final Pattern EXPONENT = Pattern.compile("[eE]([+-]?)([0-9]+)");
  private static final BigInteger INT64_MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final String[] DECIMAL_UP = {"k", "M", "G", "T", "P", "E"};
  private static final String[] BINARY_UP = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

  private Quantity() {}

  /** A quantity that is not one, or whose value does not fit a long. */
  public static final class QuantityException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    QuantityException(String message) {
      super(message);
    }
  }

  /**
   * The quantity as the resource's canonical integer, rounded up away from zero as Kubernetes
   * does ("0.1m" of cpu is 1, "0.5" bytes is 1). The number needs at least one digit ("", "+"
   * and "." are refused).
   *
   * @throws QuantityException naming the quantity and the resource
   */
  public static long parse(String resource, String quantity) {
    try {
      return parseScaled(quantity, "cpu".equals(resource) ? 1000 : 1);
    } catch (QuantityException e) {
      throw new QuantityException(
          "quantity \"" + jsonEscape(quantity) + "\" of " + resource + ": " + e.getMessage());
    }
  }

  /** A resource list (requests, allocatable) parsed with {@link #parse}, in the map's order. */
  public static Map<String, Long> parseResources(Map<String, String> quantities) {
    Map<String, Long> out = new LinkedHashMap<>();
    quantities.forEach((name, q) -> out.put(name, parse(name, q)));
    return out;
  }

  /**
   * The resource's canonical integer as a quantity {@link #parse} reads back: cpu in cores when
   * whole, else millicores ("2", "1500m"); bytes with the largest exact binary suffix ("1536Mi"),
   * else decimal ("2k"); counts with the largest exact decimal suffix ("110", "2k").
   */
  public static String format(String resource, long value) {
    if ("cpu".equals(resource)) {
      if (value % 1000 != 0) {
        return value + "m";
      }
      return scaled(BigInteger.valueOf(value / 1000), 1000, DECIMAL_UP);
    }
    if (isBytes(resource) && value != 0 && value % 1024 == 0) {
      return scaled(BigInteger.valueOf(value), 1024, BINARY_UP);
    }
    return scaled(BigInteger.valueOf(value), 1000, DECIMAL_UP);
  }

  private static String scaled(BigInteger value, int base, String[] suffixes) {
    boolean negative = value.signum() < 0;
    BigInteger v = value.abs(); // BigInteger: the magnitude of Long.MIN_VALUE fits
    BigInteger b = BigInteger.valueOf(base);
    String suffix = "";
    for (String s : suffixes) {
      if (v.signum() == 0 || v.mod(b).signum() != 0) {
        break;
      }
      v = v.divide(b);
      suffix = s;
    }
    return (negative ? "-" : "") + v + suffix;
  }

  private static boolean isBytes(String resource) {
    return resource.equals("memory")
        || resource.equals("ephemeral-storage")
        || resource.equals("storage")
        || resource.startsWith("hugepages-");
  }

  private static String jsonEscape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static long parseScaled(String s, int scale) {
    if (s.isEmpty()) {
      throw new QuantityException(EMPTY);
    }
    boolean negative = s.charAt(0) == '-';
    if (s.charAt(0) == '-' || s.charAt(0) == '+') {
      s = s.substring(1);
    }
    Matcher m = NUMBER.matcher(s);
    String whole = "";
    String frac = "";
    String suffix = "";
    if (m.matches()) {
      whole = m.group(1);
      frac = m.group(2) == null ? "" : m.group(2);
      suffix = m.group(3);
    }
    if (whole.isEmpty() && frac.isEmpty()) {
      throw new QuantityException(INVALID);
    }
    int[] powers = suffixPowers(suffix);
    int exp10 = powers[0];
    int exp2 = powers[1];
    BigInteger mantissa = new BigInteger(whole + frac);
    if (mantissa.signum() == 0) {
      return 0;
    }
    exp10 -= frac.length();
    int digits = mantissa.toString().length();
    if (exp10 > 40) { // 10^40 is beyond a long at any scale
      throw new QuantityException(OUT_OF_RANGE);
    }
    if (exp2 == 0 && digits + exp10 < -4) { // below 10^-4: the ceiling is 1 at any scale
      return negative ? -1 : 1;
    }
    BigInteger num = mantissa.multiply(BigInteger.valueOf(scale)).shiftLeft(exp2);
    BigInteger den = BigInteger.ONE;
    if (exp10 >= 0) {
      num = num.multiply(BigInteger.TEN.pow(exp10));
    } else {
      den = BigInteger.TEN.pow(-exp10);
    }
    BigInteger[] qr = num.divideAndRemainder(den);
    BigInteger q = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE); // ceiling
    if (q.compareTo(INT64_MAX) > 0) {
      throw new QuantityException(OUT_OF_RANGE);
    }
    return negative ? -q.longValue() : q.longValue();
  }

  /** The powers of ten and of two a suffix stands for. */
  private static int[] suffixPowers(String suffix) {
    switch (suffix) {
      case "n": return new int[] {-9, 0};
      case "u": return new int[] {-6, 0};
      case "m": return new int[] {-3, 0};
      case "": return new int[] {0, 0};
      case "k": return new int[] {3, 0};
      case "M": return new int[] {6, 0};
      case "G": return new int[] {9, 0};
      case "T": return new int[] {12, 0};
      case "P": return new int[] {15, 0};
      case "E": return new int[] {18, 0};
      case "Ki": return new int[] {0, 10};
      case "Mi": return new int[] {0, 20};
      case "Gi": return new int[] {0, 30};
      case "Ti": return new int[] {0, 40};
      case "Pi": return new int[] {0, 50};
      case "Ei": return new int[] {0, 60};
      default:
        break;
    }
    Matcher m = EXPONENT.matcher(suffix);
    if (!m.matches()) {
      throw new QuantityException(INVALID);
    }
    // Beyond ±1000 only the sign matters (out of range, or rounded to 1).
    String digits = m.group(2).replaceFirst("^0+(?=.)", "");
    int e = digits.length() > 4 ? 1000 : Math.min(Integer.parseInt(digits), 1000);
    return new int[] {"-".equals(m.group(1)) ? -e : e, 0};
  }
}
