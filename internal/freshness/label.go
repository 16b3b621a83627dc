package freshness

// Label is the freshness verdict of one file or one item.
type Label string

// The labels, as DESIGN.md fixes them.
const (
	Fresh        Label = "fresh"
	StaleChanged Label = "stale_changed"
	StaleDeleted Label = "stale_deleted"
	Unknown      Label = "unknown"
	NoRefs       Label = "no_refs"
)

// severity orders labels for worst-case aggregation.
func (l Label) severity() int {
	switch l {
	case StaleDeleted:
		return 3
	case StaleChanged:
		return 2
	case Unknown:
		return 1
	default:
		return 0
	}
}

// Stale reports whether the label says an input changed or vanished.
func (l Label) Stale() bool { return l == StaleChanged || l == StaleDeleted }

// Worst aggregates per-file labels: stale_deleted > stale_changed > unknown >
// fresh; no labels at all is no_refs.
func Worst(labels ...Label) Label {
	if len(labels) == 0 {
		return NoRefs
	}
	worst := Fresh
	for _, l := range labels {
		if l.severity() > worst.severity() {
			worst = l
		}
	}
	return worst
}

// RankFactor is the multiplier recall applies to a relevance score: small
// enough that relevance comes first and freshness breaks near-ties.
func (l Label) RankFactor() float64 {
	switch l {
	case Fresh:
		return 1.06
	case StaleChanged:
		return 0.93
	case StaleDeleted:
		return 0.88
	case NoRefs:
		return 0.99
	default:
		return 1.00
	}
}
