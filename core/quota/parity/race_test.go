//go:build race

package parity

// raceDetector is true under the race detector. The admission code is
// single-goroutine, so under it the tests replay every raceStride-th
// scenario and seed; .ci/test replays all of them without -race.
const raceDetector = true

// raceStride: see raceDetector.
const raceStride = 10
