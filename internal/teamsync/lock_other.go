//go:build !unix

package teamsync

func lockPublisher(string, bool) (func(), bool) { return func() {}, true }

func publisherRunning(string) bool { return false }
