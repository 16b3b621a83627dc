//go:build race

package records

// raceDetector says whether this test binary was built with -race.
const raceDetector = true
