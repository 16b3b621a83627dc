// Package panicky writes to a nil map for the panic corpus.
package panicky

// Registry maps names to ids.
type Registry struct{ ids map[string]int }

// Register stores an id; the map is never made.
func (r *Registry) Register(name string, id int) { r.ids[name] = id }
