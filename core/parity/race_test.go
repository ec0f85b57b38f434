//go:build race

package parity_test

// raceDetector is true in a build with the race detector, which runs the
// replays about nine times slower: the switched replays then take one seed
// per case and the corpora every third cluster, and .ci/test runs them all
// without it too.
const raceDetector = true
