//go:build race

package parity_test

// raceDetector is true in a build with the race detector, which runs the
// replays about nine times slower. The race detector looks for data races
// in the scheduler's parallel filter and score workers, which every cluster
// exercises alike, so under it the switched replays take one seed per case
// and the corpora every raceStride-th cluster; .ci/test then replays them
// all without it.
const raceDetector = true

// raceStride: see raceDetector.
const raceStride = 10
