package compress

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestHeldTestsReusedChangeNothing: a go test -v log of tests run one
// after another and side by side, passing, failing, past their cap of held
// lines, cut short by a package's end or a panic, digests the same whether
// the held tests done with are used again or each test gets a new one.
func TestHeldTestsReusedChangeNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := []string{"TestA", "TestB", "TestC", "TestD/sub"}
		n := rapid.IntRange(1, 200).Draw(t, "events")
		var log []string
		for i := range n {
			name := rapid.SampledFrom(names).Draw(t, "name")
			switch rapid.IntRange(0, 9).Draw(t, "kind") {
			case 0, 1:
				log = append(log, "=== RUN   "+name)
			case 2:
				log = append(log, "=== CONT  "+name)
			case 3:
				log = append(log, fmt.Sprintf("--- PASS: %s (0.00s)", name))
			case 4:
				log = append(log, fmt.Sprintf("--- FAIL: %s (0.00s)", name))
			case 5:
				log = append(log, "ok  \texample.com/p\t0.01s")
			case 6:
				switch rapid.IntRange(0, 9).Draw(t, "rare") {
				case 0:
					log = append(log, "panic: boom")
					continue
				case 1: // past a test's cap: lines counted, not kept
					for j := range maxHeldPerTest + 2 {
						log = append(log, fmt.Sprintf("    %s_test.go:%d: many", name, j))
					}
					continue
				}
				fallthrough
			default:
				log = append(log, fmt.Sprintf("    %s_test.go:%d: line %d of %s", name, i, i, name))
			}
		}
		digestOf := func(reuse bool) string {
			defer func(r bool) { reuseHeld = r }(reuseHeld)
			reuseHeld = reuse
			g := newGoTests(NewEngine(Summary, Rules{}).(*engine), func(s string) (string, bool) { return s, true })
			for _, l := range log {
				g.Line(l)
			}
			g.flushAll()
			return Render(g.engine.Finish())
		}
		if with, without := digestOf(true), digestOf(false); with != without {
			t.Fatalf("digest with reuse:\n%s\nwithout:\n%s", with, without)
		}
	})
}
