//go:build !race

package simcheck_test

// raceDetector: see race_test.go.
const raceDetector = false
