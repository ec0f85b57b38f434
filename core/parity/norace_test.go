//go:build !race

package parity_test

// raceDetector and raceStride: see race_test.go.
const (
	raceDetector = false
	raceStride   = 1
)
