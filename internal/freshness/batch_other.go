//go:build !linux

package freshness

func (s *Snapshot) fingerprintBatch(rels []string, out []Fingerprint, errs []error) {
	s.fingerprintEach(rels, out, errs)
}
