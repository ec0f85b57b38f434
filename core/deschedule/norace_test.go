//go:build !race

package deschedule_test

// raceDetector: see race_test.go.
const raceDetector = false
