package freshness

import "context"

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
	if len(s.seen) == 0 { // made at its size rather than grown, split by split
		s.seen = make(map[string]*observation, len(rels))
	}
	for i, rel := range rels {
		s.seen[rel] = &observation{fp: fps[i], statErr: errs[i]}
	}
}

// Present says which of the clean, root-relative paths rels (sorted) are
// in the work tree, as PresentPaths does: a path the snapshot has
// fingerprinted is there when its fingerprint was taken, and the rest
// (and those whose fingerprint failed: a dangling symlink is there) are
// lstat'ed. A path set lists the same files an artifact's slices depend
// on; this way each is looked at once.
func (s *Snapshot) Present(ctx context.Context, rels []string) ([]bool, error) {
	out := make([]bool, len(rels))
	var rest []string
	var at []int
	for i, rel := range rels {
		if o, ok := s.seen[rel]; ok && o.statErr == nil {
			out[i] = true
			continue
		}
		rest, at = append(rest, rel), append(at, i)
	}
	if len(rest) == 0 {
		return out, nil
	}
	found, err := PresentPaths(ctx, s.ws.Root, rest)
	for j, i := range at {
		out[i] = found[j]
	}
	return out, err
}
