//go:build race

package testrace

// Enabled says whether the binary was built with -race.
const Enabled = true
