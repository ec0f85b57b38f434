//go:build race

package parity

// raceDetector is true under the race detector, which replays a quarter of
// the corpus (the admission code is single-goroutine; .ci/test replays all
// of it without -race).
const raceDetector = true
