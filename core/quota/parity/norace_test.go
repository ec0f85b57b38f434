//go:build !race

package parity

// raceDetector: see race_test.go.
const raceDetector = false
