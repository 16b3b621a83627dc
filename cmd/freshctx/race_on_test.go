//go:build race

package main

// raceDetector says whether this test binary was built with -race.
const raceDetector = true
