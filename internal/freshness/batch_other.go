//go:build !linux

package freshness

func fingerprintBatch(rootSlash string, rels []string, out []Fingerprint, errs []error) {
	for i, rel := range rels {
		out[i], errs[i] = fingerprint(OSFS{}, rootSlash+rel)
	}
}

func presentBatch(rootSlash string, rels []string, out []bool) {
	for i, rel := range rels {
		_, err := lstat(rootSlash + rel)
		out[i] = err == nil
	}
}
