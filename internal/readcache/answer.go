package readcache

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/freshctx/freshctx/internal/sha"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/tokens"
)

// answer decides the mode, records the entry and updates the trust.
func (s *Service) answer(ctx context.Context, tx *store.Tx, session string, f *file, rng lineRange) (*ReadResult, error) {
	leaf, err := sessionLeaf(ctx, tx, session, s.WS.Root, true)
	if err != nil {
		return nil, err
	}
	e := &entry{session: session, parent: leaf, kind: "read", path: f.rel}
	res := &ReadResult{Path: f.rel, TotalLines: f.lines}
	if f.binary != "" {
		res.Mode, res.Reason = ModeFull, f.binary+" file: content not shown, nothing cached"
		res.Text = fmt.Sprintf("[%s is a %s file of %d bytes; its content is not shown]", f.rel, f.binary, len(f.content))
		e.shown = showNotice
		return s.record(ctx, tx, e, res, nil, Span{}, "")
	}
	pic, err := picture(ctx, tx, session, f.rel)
	if err != nil {
		return nil, err
	}
	known := NotCounted // the whole text's count, when unchangedWhole made or found it
	if rng.start == 0 {
		if w, ok := pic.Whole(); ok && w.Version == f.version && !w.Edited {
			done, n, err := s.unchangedWhole(ctx, tx, e, res, f, w, pic)
			if done || err != nil {
				return res, err
			}
			known = n
		}
	}
	content := f.content
	lines := splitLines(content)
	start, end, err := f.bounds(lines, rng)
	if err != nil {
		return nil, err
	}
	shown, cut := s.fit(lines, start, end)
	if shown == start && len(lines[start-1]) > s.maxBytes() {
		return s.answerLongLine(ctx, tx, e, res, f, lines[start-1], start)
	}
	span := Span{Start: start, End: shown, Version: f.version, Lines: f.lines}
	if shown >= start {
		res.Range = &[2]int{start, shown}
	}
	text := f.render(lines, start, shown)
	// With TokensLater a count the answer does not need is left for Status,
	// which makes it from the version kept (keepVersion): loading the
	// tokenizer's vocabulary was most of a first read's time in a process
	// that answers one read.
	later := s.TokensLater && len(content) <= maxStored
	res.PlainTokens = known
	if known == NotCounted || start != 1 || shown != f.lines {
		res.PlainTokens = s.plainTokens(ctx, tx, pic, f.version, start, shown, text, later)
	}
	whole := rng.start == 0 && !cut
	switch {
	case whole:
		err = s.answerWhole(ctx, tx, res, pic, f, content, text)
	default:
		s.answerRange(ctx, tx, res, pic, f, lines, span, text, s.noteCount(ctx, tx, session, res))
	}
	if err != nil {
		return nil, err
	}
	if cut {
		res.Text += fmt.Sprintf("\n[truncated: lines %d-%d of %d shown; continue with %s:%d-]", start, shown, f.lines, f.rel, shown+1)
		res.Reason += fmt.Sprintf("; output limit reached at line %d", shown)
	}
	if whole {
		// The model now holds the whole version (as content or as a diff
		// against what it held): line count and deleted lines included.
		e.shown = showWhole
		span = Span{Start: 1, End: f.lines, Version: f.version, Lines: f.lines}
	}
	if err := s.keepVersion(ctx, tx, f, content); err != nil {
		return nil, err
	}
	return s.record(ctx, tx, e, res, pic, span, text)
}

// numbered renders lines start..end as the agents' own read tools do: the
// line number right-aligned in six columns, a tab, the line.
func numbered(lines []string, start, end int) string {
	var b strings.Builder
	for i := start; i <= end; i++ {
		fmt.Fprintf(&b, "%6d\t%s", i, lines[i-1])
	}
	return b.String()
}

// render is lines start..end as the reader gets them: numbered as the
// agents' read tools do, or as f's client sends them.
func (f *file) render(lines []string, start, end int) string {
	if f.form == nil {
		return numbered(lines, start, end)
	}
	text := strings.Join(lines[start-1:end], "")
	if start > 1 || end < len(lines) {
		text = strings.TrimSuffix(text, "\n") // a client's range has no last newline
	}
	return f.form.Sent(text, start)
}

// sent is an answer's text as the reader gets it in place of lines from
// start on: as it is, or with the line numbers f's client adds.
func (f *file) sent(text string, start int) string {
	if f.form == nil {
		return text
	}
	return f.form.Sent(text, start)
}

// numbered is how many lines a rendering of lines start..end starts with
// its line number (all, or none when f's client sends lines bare): a
// bound on its tokens (noteCheaper).
func (f *file) numbered(start, end int) int {
	if f.form != nil && !f.form.Numbered() {
		return 0
	}
	return end - start + 1
}

// answerLongLine shows the first part of a line longer than the output
// limit. Nothing of it is trusted afterwards: the model never saw it whole.
func (s *Service) answerLongLine(ctx context.Context, tx *store.Tx, e *entry, res *ReadResult, f *file, line string, n int) (*ReadResult, error) {
	part := line[:s.maxBytes()]
	for len(part) > 0 && !utf8.ValidString(part) {
		part = part[:len(part)-1] // do not split a character
	}
	res.Mode = ModeFull
	res.Reason = fmt.Sprintf("line %d is %d KB, over the %d KB output limit: cut", n, len(line)>>10, s.maxBytes()>>10)
	res.Text = fmt.Sprintf("%6d\t%s\n[line %d cut: %d of its %d bytes shown; the rest is not shown by this tool]", n, part, n, len(part), len(line))
	res.PlainTokens = countTokens(res.Text)
	if n < f.lines {
		res.Text += fmt.Sprintf("\n[continue with %s:%d-]", f.rel, n+1)
	}
	// The model now holds a part of a line of this version beside
	// whatever it held before: nothing of the file can be vouched for.
	e.shown = showNotice
	return s.record(ctx, tx, e, res, nil, Span{}, "")
}

// plainTokens counts what a plain read tool would send for these lines,
// reusing the count of the read that showed the same lines of the same
// version (tokenizing 50 KB takes ~10 ms); with later and no count to
// reuse, it leaves the count for Status (NotCounted).
func (s *Service) plainTokens(ctx context.Context, tx *store.Tx, pic Picture, version string, start, end int, text string, later bool) int {
	if base, ok := pic.Covers(start, end); ok && base.Version == version {
		var n, a, b int
		err := tx.QueryRowContext(ctx, `SELECT tokens_full, range_start, range_end FROM rc_entries WHERE id = ?`, base.Entry).Scan(&n, &a, &b)
		if err == nil && a == start && b == end && n != NotCounted {
			return n
		}
	}
	if later {
		return NotCounted
	}
	return countTokens(text)
}

// noteCheaper reports whether note costs fewer tokens than text, the
// lines a plain read sends, whose count is n or NotCounted, and returns
// the count of text when it was made. With later a count not made is
// bounded first: a rendering whose every line starts with its number
// (numbered of them) has at least as many tokens as lines, since the
// tokenizer takes the number as a piece of its own
// (TestNumberedLinesBoundTheirTokens), and any text has at least
// tokens.AtLeast of it; a note has at most as many tokens as bytes, or
// the count kept of it (noteCounts.under). Only when the bounds do not
// decide is the text counted, and the note with it; without later the
// text always is.
func noteCheaper(note string, n, numbered int, later bool, text func() (string, bool), notes noteCounts) (cheap bool, count int) {
	if n == NotCounted {
		if later && numbered > 0 && notes.under(note, numbered) {
			return true, NotCounted
		}
		t, ok := text()
		if !ok {
			return false, NotCounted
		}
		if later && notes.under(note, max(numbered, tokens.AtLeast(t))) {
			return true, NotCounted
		}
		most, exact := notes.atMost(t)
		if later && notes.atLeast(note) >= most {
			// A text of few tokens (its count kept, or its bytes) costs no
			// more than the fewest the note can have.
			if !exact {
				most = NotCounted
			}
			return false, most
		}
		// With the tokenizer loaded the note's count costs next to
		// nothing more, and kept, it decides the next choice of the
		// same note against the text's bound (under) without counting.
		if n = most; !exact {
			n = countTokens(t)
		}
		return notes.count(note) < n, n
	}
	return cheaper(note, n, notes.count), n
}

// fit bounds the lines shown from start by the output limits; cut reports
// whether the requested end was not reached.
func (s *Service) fit(lines []string, start, end int) (shown int, cut bool) {
	bytes := 0
	shown = start - 1
	for i := start; i <= end; i++ {
		if i-start >= s.maxLines() || (bytes+len(lines[i-1]) > s.maxBytes() && i > start) {
			return shown, true
		}
		bytes += len(lines[i-1])
		shown = i
	}
	return shown, false
}

// unchangedWhole answers a whole-file read of the version the model holds,
// when the version fits the output limits, without rendering a diff or
// reading the version kept: the bytes just read are that version.
//
// When it does not, it returns the count of the file's text it made or
// found for the choice, or NotCounted.
func (s *Service) unchangedWhole(ctx context.Context, tx *store.Tx, e *entry, res *ReadResult, f *file, w Span, pic Picture) (bool, int, error) {
	var plain, size int
	err := tx.QueryRowContext(ctx, `SELECT tokens, (SELECT size FROM blobs WHERE digest = blob) FROM rc_versions WHERE digest = ?`,
		f.version).Scan(&plain, &size)
	if errors.Is(err, sql.ErrNoRows) || f.lines > s.maxLines() || size > s.maxBytes() {
		return false, NotCounted, nil
	}
	if err != nil {
		return false, NotCounted, err
	}
	note := wholeNote(f.rel, f.lines)
	if f.form != nil {
		plain = NotCounted // the count kept is of freshctx's numbering, not the client's
	}
	kept := plain
	// The bytes just read are the version (its digest names them).
	cheap, plain := noteCheaper(f.sent(note, 1), plain, f.numbered(1, f.lines), s.TokensLater, func() (string, bool) {
		return f.render(splitLines(f.content), 1, f.lines), true
	}, s.noteCount(ctx, tx, e.session, res))
	if kept == NotCounted && plain != NotCounted && f.form == nil {
		// Counted now: kept, so that the next read of the version, in
		// another process, need not count it again.
		if _, err := tx.ExecContext(ctx, `UPDATE rc_versions SET tokens = ? WHERE digest = ?`, plain, f.version); err != nil {
			return false, NotCounted, err
		}
	}
	if !cheap {
		res.overNote = true
		return false, plain, nil // a tiny file is its own cheapest answer
	}
	res.Mode, res.Reason = ModeUnchanged, fmt.Sprintf("as you last read it (entry %d)", w.Entry)
	res.Text, res.sent = note, f.sent(note, 1)
	res.Range, res.PlainTokens = &[2]int{1, f.lines}, plain
	e.shown = showWhole
	_, err = s.record(ctx, tx, e, res, pic, Span{Start: 1, End: f.lines, Version: f.version, Lines: f.lines}, "")
	return true, NotCounted, err
}

// answerWhole answers a read of the whole file, which fits the limits.
func (s *Service) answerWhole(ctx context.Context, tx *store.Tx, res *ReadResult, pic Picture, f *file, content []byte, text string) error {
	w, ok := pic.Whole()
	switch {
	case len(pic) == 0:
		res.Mode, res.Reason, res.Text = ModeFull, "first read in this context", text
	case !ok:
		res.Mode, res.Reason, res.Text = ModeBaselineFallback, "what you have seen of it is partial or mixes versions", text
	case w.Version == f.version && w.Edited:
		res.Mode, res.Reason, res.Text = ModeFull, "you changed it since your last read: this is the file now", text
	case w.Version == f.version:
		// unchangedWhole chose the text over the note (res.overNote), or
		// could not weigh them (the version not kept, or over the limits).
		res.Mode, res.Reason, res.Text = ModeFull, "unchanged, but the file costs no more than a note saying so", text
	default:
		diff, why, err := s.diff(ctx, tx, w, f, content, text)
		if err != nil {
			return err
		}
		if why != "" {
			res.Mode, res.Reason, res.Text = ModeBaselineFallback, why, text
			return nil
		}
		res.Mode, res.Reason = ModeDiff, fmt.Sprintf("changed since you last read it (entry %d)", w.Entry)
		res.Text, res.sent = diff, f.sent(diff, 1)
	}
	return nil
}

// diff renders the change from the version the model holds, or says why it
// cannot be used.
func (s *Service) diff(ctx context.Context, tx *store.Tx, w Span, f *file, content []byte, text string) (string, string, error) {
	if len(content) > maxStored {
		return "", "file too large for diffing", nil
	}
	before, ok, err := s.versionContent(ctx, tx, w.Version)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return "", "the version you read is no longer stored", nil
	}
	d := udiff.Unified("a/"+f.rel, "b/"+f.rel, string(before), string(content))
	out := diffHeader(f.rel) + "\n" + d
	if countTokens(f.sent(out, 1)) >= countTokens(text) {
		return "", "the diff is not smaller than the file", nil
	}
	return out, "", nil
}

// answerRange answers a read of some lines (or the first window of a file
// larger than the limits).
func (s *Service) answerRange(ctx context.Context, tx *store.Tx, res *ReadResult, pic Picture, f *file, lines []string, span Span, text string,
	notes noteCounts) {
	res.Text = text
	if span.End < span.Start {
		res.Mode, res.Reason = ModeFull, "empty range"
		return
	}
	base, ok := pic.Covers(span.Start, span.End)
	switch {
	case ok && base.Edited:
		res.Mode, res.Reason = ModeBaselineFallback, "you changed the file since you read these lines"
	case ok && (base.Version == f.version || s.sameLines(ctx, tx, base.Version, lines, span)):
		elsewhere := ""
		if base.Version != f.version {
			elsewhere = "; other lines of the file changed since"
		}
		note := rangeNote(f.rel, span.Start, span.End, elsewhere != "")
		var cheap bool
		cheap, res.PlainTokens = noteCheaper(f.sent(note, span.Start), res.PlainTokens, f.numbered(span.Start, span.End), s.TokensLater,
			func() (string, bool) { return res.Text, true }, notes)
		if !cheap {
			res.Mode, res.Reason = ModeFull, "unchanged, but these lines cost no more than a note saying so"
			res.overNote = true
			return
		}
		res.Mode, res.Reason = ModeUnchangedRange, fmt.Sprintf("as you last read them (entry %d)%s", base.Entry, elsewhere)
		res.Text, res.sent = note, f.sent(note, span.Start)
	case ok:
		res.Mode, res.Reason = ModeBaselineFallback, "these lines changed or shifted since you read them"
	case overlaps(pic, span.Start, span.End):
		res.Mode, res.Reason = ModeBaselineFallback, "you have seen only part of these lines, or them from several versions"
	default:
		res.Mode, res.Reason = ModeFull, "first read of these lines in this context"
	}
}

// The notes name what the model can recognise: the file, its lines and
// its own last read of them, never an entry of freshctx's.

// wholeNote stands for a whole file the model holds as it is now.
func wholeNote(path string, lines int) string {
	return fmt.Sprintf("[unchanged: %s, all %d lines as you last read them]", path, lines)
}

// rangeNote stands for lines the model holds as they are now.
func rangeNote(path string, start, end int, elsewhere bool) string {
	lines := fmt.Sprintf("lines %d-%d", start, end)
	if start == end {
		lines = fmt.Sprintf("line %d", start)
	}
	if elsewhere {
		return fmt.Sprintf("[unchanged: %s %s, as you last read them; other lines of the file changed since]", path, lines)
	}
	return fmt.Sprintf("[unchanged: %s %s, as you last read them]", path, lines)
}

// diffHeader heads a diff from the version the model holds.
func diffHeader(path string) string {
	return fmt.Sprintf("[%s changed since you last read it; unified diff from what you read to what it is now:]", path)
}

func overlaps(p Picture, start, end int) bool {
	for _, x := range p {
		if x.Start <= end && x.End >= start {
			return true
		}
	}
	return false
}

// sameLines compares lines of the stored version with the file now.
func (s *Service) sameLines(ctx context.Context, tx *store.Tx, version string, now []string, span Span) bool {
	before, ok, err := s.versionContent(ctx, tx, version)
	if err != nil || !ok {
		return false
	}
	old := splitLines(before)
	if span.End > len(old) {
		return false
	}
	for i := span.Start; i <= span.End; i++ {
		if old[i-1] != now[i-1] {
			return false
		}
	}
	return true
}

// versionContent reads a stored version.
func (s *Service) versionContent(ctx context.Context, tx *store.Tx, version string) ([]byte, bool, error) {
	var blob string
	err := tx.QueryRowContext(ctx, `SELECT blob FROM rc_versions WHERE digest = ?`, version).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	d, err := sha.Parse(blob)
	if err != nil {
		return nil, false, err
	}
	rc, err := s.Store.OpenBlob(d)
	if err != nil {
		return nil, false, nil // gone: no base
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return b, err == nil, nil
}

// keepVersion stores a delivered version as a future diff base.
func (s *Service) keepVersion(ctx context.Context, tx *store.Tx, f *file, content []byte) error {
	if len(content) > maxStored {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM rc_versions WHERE digest = ?`, f.version).Scan(&n); err != nil || n > 0 {
		return err
	}
	blob, err := tx.WriteBlob(content)
	if err != nil {
		return err
	}
	count := NotCounted // made when an answer needs it (unchangedWhole)
	if !s.TokensLater {
		count = countTokens(numbered(splitLines(content), 1, f.lines))
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO rc_versions (digest, blob, lines, tokens) VALUES (?, ?, ?, ?)`,
		f.version, blob.Digest.String(), f.lines, count)
	return err
}

// record appends the read entry, not yet delivered: it becomes trust only
// when Delivered says the answer reached the model. plain is the text a
// plain read tool would have sent, when res.PlainTokens counts it.
func (s *Service) record(ctx context.Context, tx *store.Tx, e *entry, res *ReadResult, _ Picture, span Span, plain string) (*ReadResult, error) {
	sent := cmp.Or(res.sent, res.Text)
	switch {
	case s.TokensLater && (res.Mode == ModeUnchanged || res.Mode == ModeUnchangedRange):
		res.Tokens, e.servedText = NotCounted, sent
		if res.counted != "" && res.counted == sent {
			// Counted for the choice: kept with the text, so that the next
			// choice of the same note need not count it (noteCount).
			res.Tokens = res.countedTokens
		}
	case res.PlainTokens == NotCounted && res.Text == plain:
		// It served what a plain read would: Status makes the one count
		// (an entry not counted with no note served the plain text).
		res.Tokens = NotCounted
	default:
		if res.PlainTokens == NotCounted {
			res.PlainTokens = countTokens(plain)
		}
		res.Tokens = res.PlainTokens
		if plain == "" || sent != plain {
			res.Tokens = countTokens(sent)
		}
		if res.overNote && len(sent) <= maxKeptText {
			// A text served in place of a note is kept with its count, so
			// that the next choice between them finds it (noteCounts.atMost).
			e.servedText = sent
		}
	}
	e.mode, e.tokensFull, e.served = res.Mode, res.PlainTokens, res.Tokens
	switch {
	case e.shown == showWhole:
		e.start, e.end, e.version, e.lines = 1, span.Lines, span.Version, span.Lines
	case e.shown == showNotice:
	case span.Version != "" && span.End >= span.Start && span.Start > 0:
		e.start, e.end, e.version, e.lines = span.Start, span.End, span.Version, span.Lines
	}
	if err := appendEntry(ctx, tx, e); err != nil {
		return nil, err
	}
	res.Entry, res.session = e.id, e.session
	return res, nil
}

// Delivered records that a read's answer reached the model: only then does
// what it showed become trust. A read that failed, or whose answer was
// never written out, is never trusted.
func (s *Service) Delivered(ctx context.Context, res *ReadResult) error {
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		var e entry
		var leaf sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT e.id, e.session, e.path, e.range_start, e.range_end, e.version, e.lines, e.mode, e.shown, e.revoked, s.leaf
			FROM rc_entries e JOIN rc_sessions s ON s.name = e.session WHERE e.id = ? AND e.kind = 'read'`, res.Entry).
			Scan(&e.id, &e.session, &e.path, &e.start, &e.end, &e.version, &e.lines, &e.mode, &e.shown, &e.revoked, &leaf)
		if err != nil {
			return fmt.Errorf("deliver entry %d: %w", res.Entry, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rc_entries SET delivered = 1 WHERE id = ?`, res.Entry); err != nil {
			return err
		}
		if leaf.Int64 != res.Entry {
			// The leaf moved on: reads made meanwhile (parallel tool calls)
			// leave this file's picture as this read found it, unless one of
			// them bears on the file or a compaction ended the window.
			clear, err := clearSince(ctx, tx, e, leaf.Int64)
			if err != nil {
				return err
			}
			if !clear {
				return rebuild(ctx, tx, e.session, leaf.Int64) // replay the path
			}
		}
		pic, err := picture(ctx, tx, e.session, e.path)
		if err != nil {
			return err
		}
		if e.revoked {
			pic = nil // it leaned on a read taken back meanwhile
		} else {
			pic = shownBy(pic, e)
		}
		return savePicture(ctx, tx, e.session, e.path, pic)
	})
}

// noteCounts counts the notes a read may be answered with, as sent, for
// the choice between a note and the text (cheaper, noteCheaper).
type noteCounts struct {
	// count counts a note, or finds the count kept of it.
	count func(note string) int
	// kept finds the count kept of a note, never counting (false: none).
	kept func(note string) (int, bool)
}

// under reports, without counting, that note has fewer tokens than least:
// fewer bytes (every token of valid UTF-8 text is a byte at least), or a
// count kept of fewer.
func (c noteCounts) under(note string, least int) bool {
	if len(note) < least && utf8.ValidString(note) {
		return true
	}
	if c.kept == nil {
		return false
	}
	n, ok := c.kept(note)
	return ok && n < least
}

// maxKeptText bounds the text record keeps with its count when it served
// it in place of a note: such a text costs no more tokens than a note of a
// line, so it is short; the bound only keeps a mistake from filling the
// store.
const maxKeptText = 4 << 10

// atMost bounds text's tokens from above without counting: the count kept
// of it (exact), else its bytes when it is valid UTF-8.
func (c noteCounts) atMost(text string) (n int, exact bool) {
	if c.kept != nil {
		if n, ok := c.kept(text); ok {
			return n, true
		}
	}
	if utf8.ValidString(text) {
		return len(text), false
	}
	return math.MaxInt, false
}

// atLeast bounds note's tokens from below without counting: the count
// kept of it, else tokens.AtLeast.
func (c noteCounts) atLeast(note string) int {
	if c.kept != nil {
		if n, ok := c.kept(note); ok {
			return n
		}
	}
	return tokens.AtLeast(note)
}

// noteCount counts the notes a read in session may be answered with. A
// note the session was served before whose count was kept (record) has
// that count: the same text has the same count, and finding it is a
// lookup where counting loads the tokenizer's vocabulary, most of the time
// of a process that answers one read of a small file again. The note and
// its count, made or found, are left on res for record to keep.
func (s *Service) noteCount(ctx context.Context, tx *store.Tx, session string, res *ReadResult) noteCounts {
	missed := "" // a note looked up and not found: a lookup walks the session
	kept := func(note string) (int, bool) {
		switch {
		case note == res.counted:
			return res.countedTokens, true
		case note == missed:
			return 0, false
		}
		n, ok := keptCount(ctx, tx, session, note)
		if !ok {
			missed = note
			return 0, false
		}
		res.counted, res.countedTokens = note, n
		return n, true
	}
	return noteCounts{kept: kept, count: func(note string) int {
		n, ok := kept(note)
		if !ok {
			n = countTokens(note)
			res.counted, res.countedTokens = note, n
		}
		return n
	}}
}

// keptCount is the count kept with the latest entry of session that served
// text; false when there is none (or the lookup failed: the caller counts).
// It searches the index of kept texts (rc_entries_served), whose condition
// the query repeats so that SQLite may use it: a lookup costs the same in
// a session of ten entries and of ten thousand.
func keptCount(ctx context.Context, tx *store.Tx, session, text string) (int, bool) {
	if text == "" {
		return 0, false // no entry keeps an empty text: none is looked for
	}
	var n int
	err := tx.QueryRowContext(ctx, keptCountQuery, session, text).Scan(&n)
	return n, err == nil
}

const keptCountQuery = `SELECT tokens_served FROM rc_entries
	WHERE session = ? AND served_text = ? AND served_text != '' AND tokens_served >= 0
	ORDER BY id DESC LIMIT 1`
