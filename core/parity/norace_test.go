//go:build !race

package parity_test

// raceDetector: see race_test.go.
const raceDetector = false
