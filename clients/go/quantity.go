package berth

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Quantity errors; ParseQuantity wraps them with the quantity and resource.
var (
	ErrInvalidQuantity = errors.New("want a number and an optional suffix (n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3)")
	ErrQuantityRange   = errors.New("out of range")
)

// Suffixes of Kubernetes quantities: powers of ten, and of two.
var (
	decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binarySuffixes  = map[string]uint{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
)

// ParseQuantity parses a Kubernetes quantity ("500m", "1.5Gi", "2k",
// "1e3") into Berth's canonical integer for resource: millicores for "cpu",
// bytes for memory and storage, a count for anything else ("pods",
// "example.com/gpu"). As Kubernetes does, a value finer than that unit is
// rounded up, away from zero ("0.1m" of cpu is 1, "0.5" bytes is 1). The
// number needs at least one digit; unlike Kubernetes, "", "+" and "." are
// refused. Errors wrap ErrInvalidQuantity or ErrQuantityRange.
func ParseQuantity(resource, quantity string) (int64, error) {
	v, err := parseQuantity(quantity, unitScale(resource))
	if err != nil {
		return 0, fmt.Errorf("quantity %q of %s: %w", quantity, resource, err)
	}
	return v, nil
}

// ParseResources parses a resource list (requests, allocatable) with
// ParseQuantity; the error names the resource.
func ParseResources(quantities map[string]string) (map[string]int64, error) {
	out := make(map[string]int64, len(quantities))
	for name, q := range quantities {
		v, err := ParseQuantity(name, q)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// FormatQuantity writes resource's canonical integer v as a Kubernetes
// quantity that ParseQuantity reads back as v: cpu in cores when whole,
// else millicores ("2", "1500m"); bytes with the largest binary suffix
// that is exact ("1536Mi"), else decimal ("2k"); counts with the largest
// exact decimal suffix ("110", "2k").
func FormatQuantity(resource string, v int64) string {
	switch {
	case unitScale(resource) == 1000 && v%1000 != 0:
		return strconv.FormatInt(v, 10) + "m"
	case unitScale(resource) == 1000:
		return formatScaled(v/1000, 1000, []string{"k", "M", "G", "T", "P", "E"}, "")
	case isBytes(resource) && v != 0 && v%1024 == 0:
		return formatScaled(v, 1024, []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}, "")
	}
	return formatScaled(v, 1000, []string{"k", "M", "G", "T", "P", "E"}, "")
}

// formatScaled divides v by base while it divides exactly, and names the
// power with suffixes.
func formatScaled(v, base int64, suffixes []string, suffix string) string {
	for _, s := range suffixes {
		if v == 0 || v%base != 0 {
			break
		}
		v, suffix = v/base, s
	}
	return strconv.FormatInt(v, 10) + suffix
}

// unitScale is the canonical unit of resource in its quantity's units: 1000
// (milli) for cpu, 1 for the others.
func unitScale(resource string) int64 {
	if resource == "cpu" {
		return 1000
	}
	return 1
}

// isBytes reports whether resource counts bytes (formatted with binary
// suffixes).
func isBytes(resource string) bool {
	switch resource {
	case "memory", "ephemeral-storage", "storage":
		return true
	}
	return strings.HasPrefix(resource, "hugepages-")
}

// parseQuantity is quantity times scale, rounded up away from zero.
func parseQuantity(s string, scale int64) (int64, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	negative := s[0] == '-'
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
	}
	whole, frac, rest := splitNumber(s)
	if whole == "" && frac == "" {
		return 0, ErrInvalidQuantity
	}
	exp10, exp2, ok := suffixPowers(rest)
	if !ok {
		return 0, ErrInvalidQuantity
	}
	mantissa, _ := new(big.Int).SetString(whole+frac, 10)
	if mantissa.Sign() == 0 {
		return 0, nil
	}
	exp10 -= len(frac)
	digits := len(strings.TrimLeft(whole+frac, "0"))
	switch {
	case exp10 > 40: // 10^40 is beyond int64 at any scale
		return 0, ErrQuantityRange
	case exp2 == 0 && digits+exp10 < -4: // below 10^-4: the ceiling is 1 at any scale
		return signed(1, negative), nil
	}
	num := mantissa.Mul(mantissa, big.NewInt(scale))
	num.Lsh(num, exp2)
	den := big.NewInt(1)
	if exp10 >= 0 {
		num.Mul(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp10)), nil))
	} else {
		den.Exp(big.NewInt(10), big.NewInt(int64(-exp10)), nil)
	}
	q, r := num.QuoRem(num, den, new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return 0, ErrQuantityRange
	}
	return signed(q.Int64(), negative), nil
}

func signed(v int64, negative bool) int64 {
	if negative {
		return -v
	}
	return v
}

// splitNumber splits s into the digits before and after a decimal point
// and what follows them.
func splitNumber(s string) (whole, frac, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	whole, s = s[:i], s[i:]
	if strings.HasPrefix(s, ".") {
		s = s[1:]
		i = 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac, s = s[:i], s[i:]
	}
	return whole, frac, s
}

// suffixPowers reads a quantity's suffix as a power of ten and one of two.
func suffixPowers(suffix string) (exp10 int, exp2 uint, ok bool) {
	if e, ok := decimalSuffixes[suffix]; ok {
		return e, 0, true
	}
	if e, ok := binarySuffixes[suffix]; ok {
		return 0, e, true
	}
	if len(suffix) < 2 || (suffix[0] != 'e' && suffix[0] != 'E') {
		return 0, 0, false
	}
	digits := strings.TrimLeft(suffix[1:], "+-")
	if len(suffix)-1-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, 0, false
	}
	// Beyond ±1000 only the sign matters (out of range, or rounded to 1):
	// clamping keeps the arithmetic small.
	e, err := strconv.Atoi(suffix[1:])
	if err != nil || e > 1000 || e < -1000 {
		e = 1000
		if suffix[1] == '-' {
			e = -1000
		}
	}
	return e, 0, true
}
