//go:build race

package parity_test

// raceDetector is true in a build with the race detector, which runs the
// replays about nine times slower: the switched replays then take one seed
// per case, and .ci/test runs the full set without it too.
const raceDetector = true
