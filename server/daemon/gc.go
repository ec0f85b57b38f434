package daemon

import "strconv"

// DefaultGCPercent is the Go garbage collector's target (GOGC) that berthd
// runs with unless told otherwise.
//
// Go's default, 100, starts a collection whenever the heap has grown by as
// much as it holds live. At 1000 pods/s a 5000-node berthd then collects
// about once a second, and each collection slows the pods scheduled while
// it marks: for 15-40 ms it takes a quarter of the CPU and makes allocating
// goroutines help it. At 400 the collections are a quarter as frequent, for
// a heap that peaks at up to five times the live data instead of twice.
// docs/performance.md has the measurements.
const DefaultGCPercent = 400

// GCPercent is the collector target berthd runs with when no flag sets one:
// GOGC's value when getenv (os.Getenv) has one, as Go reads it ("off" and
// negative values turn collection off), else DefaultGCPercent. A GOGC that
// is not a number is ignored, so the default applies.
func GCPercent(getenv func(string) string) int {
	v := getenv("GOGC")
	if v == "off" {
		return -1
	}
	if n, err := strconv.Atoi(v); err == nil {
		return n
	}
	return DefaultGCPercent
}
