package freshness

// prefetchMin is the fewest unseen paths worth fingerprinting as a batch
// before a check.
const prefetchMin = 16

// prefetch fingerprints the files of sts that the snapshot has not seen
// yet, as observe would one by one, with FingerprintPaths: a check of
// 2,000 files spent most of its time in lstat, one whole path after
// another.
func (s *Snapshot) prefetch(sts []Stamp) {
	if _, ok := s.opt.FS.(OSFS); !ok || !s.rootExists || s.rootSlash == "" {
		return
	}
	var rels []string
	for _, st := range sts {
		for _, f := range st.Files {
			if _, ok := s.seen[f.Path]; !ok && f.Path != "" && f.Path != "." { // the root: observe's way
				rels = append(rels, f.Path)
			}
		}
	}
	if len(rels) < prefetchMin {
		return
	}
	rels = sortedUnique(rels)
	fps, errs := FingerprintPaths(s.rootSlash, rels)
	for i, rel := range rels {
		s.seen[rel] = &observation{fp: fps[i], statErr: errs[i]}
	}
}
