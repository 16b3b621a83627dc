package integrate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/freshctx/freshctx/internal/readcache"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/teststore"
	"github.com/freshctx/freshctx/internal/tokens"
)

// TestFormChoicesAreTheExactCounts: a read again in a client's form,
// answered by a service that leaves counts for later (as the hooks and
// pi's extension do), is answered as a service that counts everything
// answers it. A note replaces the text only where it costs fewer tokens,
// as sent, than the text: pi sends lines without numbers, and a run of
// empty lines is far fewer tokens than lines (a hundred are 7), so the
// count of lines bounds only text whose every line starts with its number.
func TestFormChoicesAreTheExactCounts(t *testing.T) {
	ctx := context.Background()
	type side struct {
		rc  *readcache.Service
		dir string
	}
	open := func(later bool) side {
		dir := t.TempDir()
		rc := &readcache.Service{WS: teststore.Workspace(t, dir), Store: teststore.Open(t, "", store.Options{}), Cwd: dir, TokensLater: later}
		return side{rc, dir}
	}
	exact, later := open(false), open(true)
	kinds := []string{"", "", "}", "x", "func F(x int) int {", "\treturn x + 1 // the next", "日本語のテキスト", "  ", "0123456789"}
	round := 0
	rapid.Check(t, func(t *rapid.T) {
		round++
		form := rapid.SampledFrom([]readcache.Form{claudeForm{}, piForm{}}).Draw(t, "form")
		n := rapid.IntRange(1, 160).Draw(t, "lines")
		// Runs of one kind of line (empty lines, a brace) are where a
		// count of lines is furthest from the count of tokens.
		one := rapid.Bool().Draw(t, "one kind")
		var b strings.Builder
		for i := range n {
			if one && i > 0 {
				b.WriteString(strings.SplitAfter(b.String(), "\n")[0])
				continue
			}
			b.WriteString(rapid.SampledFrom(kinds).Draw(t, fmt.Sprintf("line %d", i)))
			b.WriteByte('\n')
		}
		content := b.String()
		text := form.Text([]byte(content))
		total := form.TotalLines(text)
		start := rapid.IntRange(1, n).Draw(t, "start") // of the file's lines (not the empty one after them)
		count := rapid.IntRange(1, n-start+1).Draw(t, "count")
		ranged := strings.Join(strings.Split(text, "\n")[start-1:start-1+count], "\n")
		name := fmt.Sprintf("f%d.txt", round)
		session := fmt.Sprintf("s%d", round)
		read := func(s side, whole bool) *readcache.ReadResult {
			req := readcache.ReadRequest{Session: session, Target: filepath.Join(s.dir, name), Seen: &text, SeenTotal: total, Form: form}
			if !whole {
				req.Seen, req.Offset, req.Limit = &ranged, start, count
			}
			res, err := s.rc.Read(ctx, req)
			if err != nil {
				t.Fatalf("read %s whole %v %q (%d-%d): %v", name, whole, *req.Seen, req.Offset, req.Limit, err)
			}
			if err := s.rc.Delivered(ctx, res); err != nil {
				t.Fatal(err)
			}
			return res
		}
		for _, s := range []side{exact, later} {
			if err := os.WriteFile(filepath.Join(s.dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for i, whole := range []bool{true, true, false, true, false} {
			a, b := read(exact, whole), read(later, whole)
			if a.Mode != b.Mode || a.Text != b.Text {
				t.Fatalf("%T, read %d: counted now %s %q, counted later %s %q (text sent %d tokens)",
					form, i, a.Mode, a.Text, b.Mode, b.Text, tokens.Count(form.Sent(text, 1)))
			}
		}
	})
}

// TestClaudeFormBoundsItsTokens holds the premise of Numbered: Claude
// Code's numbered lines have at least as many tokens as lines, whatever
// the lines hold, so the read cache may take that bound before counting.
func TestClaudeFormBoundsItsTokens(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "lines")
		ls := make([]string, n)
		for i := range ls {
			line := rapid.OneOf(rapid.String(), rapid.StringMatching(`[ \t\r]{0,200}`), rapid.StringMatching(`[0-9²³¹]{0,40}`),
				rapid.StringMatching(`[a-z (){}.,;:'"/\\-]{0,80}`)).Draw(t, fmt.Sprintf("line %d", i))
			ls[i] = strings.ReplaceAll(line, "\n", "")
		}
		start := rapid.IntRange(1, 100000).Draw(t, "start")
		if got := tokens.Count(claudeForm{}.Sent(strings.Join(ls, "\n"), start)); got < n {
			t.Fatalf("%d lines sent numbered from %d are %d tokens", n, start, got)
		}
	})
}
