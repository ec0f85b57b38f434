//go:build race

package simcheck_test

// raceDetector is true in a build with the race detector, which runs the
// corpus about eight times slower: the corpus tests then take every fifth
// scenario, and .ci/test runs them all without it too.
const raceDetector = true
