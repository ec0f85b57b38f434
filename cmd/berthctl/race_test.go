//go:build race

package main

// raceDetector is true in a build with the race detector, which makes the
// replays of the parity corpus through berthd about seven times slower:
// they then take every fourth cluster, and .ci/test runs them all without
// it.
const raceDetector = true
