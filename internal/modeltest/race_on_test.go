//go:build race

package modeltest

// raceEnabled: the race detector slows every git and store call severalfold;
// the model test then runs a smoke-sized number of steps.
const raceEnabled = true
