// Kubernetes quantities ("500m", "1.5Gi", "2k", "1e3") and Berth's canonical
// integers: cpu in millicores, memory and storage in bytes, anything else
// ("pods", "example.com/gpu") as a count. The same rules, and the same test
// table (clients/testdata/quantities.json), as the Go and Python clients.

const INVALID = "want a number and an optional suffix (n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3)";
const OUT_OF_RANGE = "out of range";
const INT64_MAX = (1n << 63n) - 1n;

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const NUMBER = /^([0-9]*)(?:\.([0-9]*))?([^]*)$/;
const EXPONENT = /^[eE]([+-]?)([0-9]+)$/;

/** A quantity that is not one, or whose value does not fit (an int64, or a safe JavaScript integer). */
export class QuantityError extends Error {
  override name = "QuantityError";
}

/**
 * quantity as resource's canonical integer, exactly, rounded up away from
 * zero as Kubernetes does ("0.1m" of cpu is 1, "0.5" bytes is 1). The
 * number needs at least one digit ("", "+" and "." are refused). Throws
 * QuantityError, also beyond an int64.
 */
export function parseQuantityBigInt(resource: string, quantity: string): bigint {
  try {
    return parse(quantity, resource === "cpu" ? 1000n : 1n);
  } catch (e) {
    if (e instanceof QuantityError) throw new QuantityError(`quantity ${JSON.stringify(quantity)} of ${resource}: ${e.message}`);
    throw e;
  }
}

/**
 * parseQuantityBigInt as a number, as the generated stubs carry int64s;
 * throws QuantityError ("out of range") beyond Number.MAX_SAFE_INTEGER.
 */
export function parseQuantity(resource: string, quantity: string): number {
  const v = parseQuantityBigInt(resource, quantity);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new QuantityError(`quantity ${JSON.stringify(quantity)} of ${resource}: ${OUT_OF_RANGE}`);
  }
  return Number(v);
}

/** A resource list (requests, allocatable) parsed with parseQuantity. */
export function parseResources(quantities: Record<string, string>): Record<string, number> {
  return Object.fromEntries(Object.entries(quantities).map(([name, q]) => [name, parseQuantity(name, q)]));
}

/**
 * resource's canonical integer as a quantity that parseQuantity reads back:
 * cpu in cores when whole, else millicores ("2", "1500m"); bytes with the
 * largest exact binary suffix ("1536Mi"), else decimal ("2k"); counts with
 * the largest exact decimal suffix ("110", "2k").
 */
export function formatQuantity(resource: string, value: number | bigint): string {
  const v = BigInt(value);
  const decimal = ["k", "M", "G", "T", "P", "E"];
  if (resource === "cpu") return v % 1000n !== 0n ? `${v}m` : scaled(v / 1000n, 1000n, decimal);
  if (isBytes(resource) && v !== 0n && v % 1024n === 0n) return scaled(v, 1024n, ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]);
  return scaled(v, 1000n, decimal);
}

function scaled(v: bigint, base: bigint, suffixes: string[]): string {
  let suffix = "";
  for (const s of suffixes) {
    if (v === 0n || v % base !== 0n) break;
    v /= base;
    suffix = s;
  }
  return `${v}${suffix}`;
}

const isBytes = (resource: string) =>
  resource === "memory" || resource === "ephemeral-storage" || resource === "storage" || resource.startsWith("hugepages-");

function parse(s: string, scale: bigint): bigint {
  if (s === "") throw new QuantityError("empty");
  const negative = s[0] === "-";
  if (s[0] === "-" || s[0] === "+") s = s.slice(1);
  const m = NUMBER.exec(s);
  const [whole, frac, suffix] = m ? [m[1], m[2] ?? "", m[3]] : ["", "", ""];
  if (!whole && !frac) throw new QuantityError(INVALID);
  let [exp10, exp2] = suffixPowers(suffix);
  const mantissa = BigInt(whole + frac);
  if (mantissa === 0n) return 0n;
  exp10 -= frac.length;
  const digits = (whole + frac).replace(/^0+/, "").length;
  if (exp10 > 40) throw new QuantityError(OUT_OF_RANGE); // 10^40 is beyond int64 at any scale
  if (exp2 === 0 && digits + exp10 < -4) return negative ? -1n : 1n; // below 10^-4: the ceiling is 1 at any scale
  let num = (mantissa * scale) << BigInt(exp2);
  let den = 1n;
  if (exp10 >= 0) num *= 10n ** BigInt(exp10);
  else den = 10n ** BigInt(-exp10);
  const q = (num + den - 1n) / den; // ceiling
  if (q > INT64_MAX) throw new QuantityError(OUT_OF_RANGE);
  return negative ? -q : q;
}

function suffixPowers(suffix: string): [number, number] {
  if (Object.hasOwn(DECIMAL, suffix)) return [DECIMAL[suffix], 0];
  if (Object.hasOwn(BINARY, suffix)) return [0, BINARY[suffix]];
  const m = EXPONENT.exec(suffix);
  if (!m) throw new QuantityError(INVALID);
  // Beyond ±1000 only the sign matters (out of range, or rounded to 1).
  const e = Math.min(Number.parseInt(m[2], 10), 1000);
  return [m[1] === "-" ? -e : e, 0];
}
