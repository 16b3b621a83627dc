package compress

func init() {
	// Later registrations are tried first: the most specific last.
	Register(Go)
	Register(Rust)
	Register(JS)
	Register(Python)
	Register(Java)
	Register(C)
}
