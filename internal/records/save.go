package records

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/freshctx/freshctx/internal/compress"
	"github.com/freshctx/freshctx/internal/facts"
	"github.com/freshctx/freshctx/internal/freshness"
	"github.com/freshctx/freshctx/internal/rank"
	"github.com/freshctx/freshctx/internal/redact"
	"github.com/freshctx/freshctx/internal/refs"
	"github.com/freshctx/freshctx/internal/scope"
	"github.com/freshctx/freshctx/internal/store"
	"github.com/freshctx/freshctx/internal/tokens"
)

// recordMeta is what the caller knows about a capture.
type recordMeta struct {
	kind     string
	argv     []string
	exitCode *int
	start    time.Time
	since    time.Time // start by the file clock: a file modified after it changed during the run
	duration time.Duration
	files    []string // explicit, root-relative
}

// finish drains the analysis, stamps the referenced files and stores the
// record and its blobs in one transaction. When the store cannot be
// written (locked past the busy timeout, full, read-only) the record comes
// back unsaved, with NotKept saying why: the caller still shows the digest
// and exits with the command's status.
func (s *Service) finish(ctx context.Context, c *capture, m recordMeta) (*Record, error) {
	keepErr := c.wait()
	s.storeOpened()
	if s.Store == nil {
		keepErr = s.blobErr() // the same for both streams, printed or not
	}
	a := c.analysis
	lines := a.finish()
	later := c.countLater(s.Store != nil, wholeOutput(lines, a.lines.Load()))
	var fit compress.Capped
	rawTokens, exact := NotCounted, true
	if later {
		fit = compress.Capped{Text: compress.Render(lines), Tokens: NotCounted}
	} else {
		fit = compress.Fit(lines, c.opt.MaxTokens)
		rawTokens, exact = c.rawTokens()
	}
	r := &Record{
		Kind: m.kind, Command: quoteArgs(m.argv), Label: c.opt.Label, Cwd: s.cwdRel(),
		ExitCode: m.exitCode, DurationMS: m.duration.Milliseconds(), Intent: string(c.opt.Intent),
		Compressor: a.factory.Name, Digest: fit.Text, Omitted: fit.Omitted, DigestTokens: fit.Tokens,
		StdoutBytes: c.sinks[Stdout].size(), StderrBytes: c.sinks[Stderr].size(),
		RawTokens: rawTokens, RawTokensExact: exact, CreatedAt: m.start, fileStart: m.since,
		Redactions: c.sinks[Stdout].red.Count() + c.sinks[Stderr].red.Count(),
		root:       s.WS.Root, facts: a.scan.facts.List(), factText: a.scan.facts.Text(),
		Whole: fit.Omitted == "" && wholeOutput(lines, a.lines.Load()) && a.fault == "" && a.scan.fault == "",
	}
	switch {
	case c.opt.Command != "":
		r.Command = c.opt.Command
	case m.kind == "capture":
		r.Command = "(stdin)"
	}
	r.RawBytes = r.StdoutBytes + r.StderrBytes
	r.inputs, r.inputsGiven = s.inputsOf(c.opt, m.argv), len(c.opt.Inputs) > 0
	argv := redactArgs(m.argv, &r.Command, &r.Redactions)
	var n int
	r.Label, n = redact.String(r.Label)
	r.Redactions += n
	if keepErr == nil {
		keepErr = s.keep(ctx, c, r, m, argv)
	}
	if keepErr != nil {
		r.ID, r.NotKept = 0, keepErr.Error()
		if later { // nothing kept to count from later
			r.RawTokens, r.RawTokensExact = c.rawTokens()
			r.DigestTokens = tokens.Count(r.Digest)
		}
		return r, nil
	}
	if _, err := s.pruneIfDue(ctx); err != nil {
		return r, fmt.Errorf("record %d saved, but pruning old records failed: %w", r.ID, err)
	}
	if err := s.indexOldParts(ctx); err != nil {
		return r, fmt.Errorf("record %d saved, but re-indexing older records failed: %w", r.ID, err)
	}
	return r, nil
}

// wholeOutput reports whether a digest kept a line for each of the n lines
// of output and no marker of lines left out: its token counts would say
// nothing more than that.
func wholeOutput(lines []compress.Kept, n int64) bool {
	if int64(len(lines)) != n {
		return false
	}
	for _, l := range lines {
		if l.Prio == compress.PrioMarker {
			return false
		}
	}
	return true
}

// inputsJSON is the input scope as kept: a list of globs chosen from the
// command, or {"given": true, "globs": [...]} for a scope given.
func inputsJSON(globs []string, given bool) string {
	if len(globs) == 0 {
		return ""
	}
	var b []byte
	if given {
		b, _ = json.Marshal(keptScope{Given: true, Globs: globs})
	} else {
		b, _ = json.Marshal(globs)
	}
	return string(b)
}

// keptScope is a given input scope as kept.
type keptScope struct {
	Given bool     `json:"given"`
	Globs []string `json:"globs"`
}

// inputsOf is a record's input scope: the one given, else the one its
// command suggests (a capture's, from the command it was given, if any).
func (s *Service) inputsOf(opt Options, argv []string) []string {
	if len(opt.Inputs) > 0 {
		return opt.Inputs
	}
	return scope.Of(s.WS.Root, s.cwdRel(), commandOf(opt, argv))
}

// lookScope is the scope whose folders the output's relative paths are
// looked for in: --inputs, or the folders the command names, not the
// packages they import (a name found in several folders is stamped in
// each: the imports would add files the output never meant).
func (s *Service) lookScope(opt Options, r *Record, argv []string) []string {
	if len(opt.Inputs) > 0 {
		return r.inputs
	}
	return scope.Named(s.WS.Root, s.cwdRel(), commandOf(opt, argv))
}

// commandOf is the command line a record was made by: its argv, or, when
// it has none, Options.Command (the line as its caller wrote it) read as a
// shell line.
func commandOf(opt Options, argv []string) []string {
	if len(argv) == 0 && opt.Command != "" {
		return []string{"sh", "-c", opt.Command}
	}
	return argv
}

// lookIn is where, besides the command's folder and the root, the
// output's relative paths are looked for (outdirs.go): the folders of the
// input scope, those the command line moves to and those tools say they
// work in, for every reference; for a reference seen in go test's output,
// the folders of the packages whose output it was seen in.
func (s *Service) lookIn(c *capture, r *Record, argv []string) func(i int) []string {
	sc := &c.analysis.scan
	moved := slices.Concat(scope.CommandDirs(commandOf(c.opt, argv)), sc.entered)
	all := slices.Concat(scope.Dirs(s.lookScope(c.opt, r, argv)), enteredDirs(s.WS, s.Cwd, moved))
	g := &sc.goBlocks
	pkgs := goPackageDirs(s.WS.Root, s.cwdRel(), g.pkgs)
	return func(i int) []string {
		dirs := slices.Clip(all)
		if g.unended(i) { // its package's summary never came: it may be any
			return append(dirs, slices.Concat(pkgs...)...)
		}
		if i < len(g.of) {
			for _, k := range g.of[i] {
				dirs = append(dirs, pkgs[k]...)
			}
		}
		return dirs
	}
}

// unstamped are the paths the record names but cannot vouch for, as the
// output wrote them (from the command's folder, when that is in the root):
// the first reference past maxRefs, when the output named more, and one
// seen in the output of a go package past the packages followed.
func (s *Service) unstamped(sc *scan) []string {
	var out []string
	for _, r := range []*refs.Ref{sc.dropped, sc.overRef()} {
		if r == nil {
			continue
		}
		p := r.Path
		if rel, err := s.WS.Rel(p, s.Cwd); err == nil {
			p = rel
		}
		out = append(out, p)
	}
	return out
}

// keep stamps the files the output names and saves the record.
func (s *Service) keep(ctx context.Context, c *capture, r *Record, m recordMeta, argv []string) error {
	blobsFinished := c.finishBlobs()
	defer blobsFinished()
	sc := &c.analysis.scan
	alts, printed := candidates(s.WS, s.Cwd, sc.refs, s.lookIn(c, r, argv))
	for _, f := range m.files {
		alts, printed = append([][]string{{f}}, alts...), append([]string{""}, printed...)
	}
	look := newListings(s.WS)
	listing := s.startElsewhere(ctx, mayBeUnplaced(look, alts, printed))
	snap, err := freshness.NewSnapshot(ctx, s.WS, flatten(alts), freshness.Options{
		Cache: freshness.StoreCache{S: s.Store}, Now: s.now, Git: true, RacyWindow: s.RacyWindow,
		Status: c.status,
	})
	if err != nil {
		listing.stop()
		return err
	}
	deleted := func(rel string) bool { return snap.Status() != nil && snap.Status().Deleted(rel) }
	paths, unplaced := pick(look, alts, deleted, s.ownFiles())
	var names []string
	for _, i := range unplaced {
		if printed[i] != "" {
			names = append(names, printed[i])
		}
	}
	found, over := s.place(ctx, listing, names)
	for _, f := range found {
		if !slices.Contains(paths, f) && !s.ownFiles()(f) {
			paths = append(paths, f)
		}
	}
	paths = keepExplicit(paths, m.files)
	stamp, err := s.stamp(ctx, snap, paths, append(s.unstamped(sc), over...), m.start, m.since)
	if err != nil {
		return err
	}
	if err := snap.Flush(ctx); err != nil {
		return err
	}
	r.stamp = stamp
	r.Git = Git{Branch: stamp.Git.Branch, Head: stamp.Git.Head, Dirty: stamp.Git.Dirty}
	r.Files = filesOf(stamp)
	blobsFinished()
	if err := s.save(ctx, c, r, argv); err != nil {
		r.Files = nil
		return err
	}
	return nil
}

// redactArgs removes secrets from the command line as from its output: the
// display form and every argument, adding to the redaction count. An
// argument is also redacted whole when it is the value of the flag before
// it (`--password S3cret`), which only the pair shows.
func redactArgs(argv []string, display *string, count *int) []string {
	var n int
	*display, n = redact.String(*display)
	*count += n
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i], _ = redact.String(a)
		if i > 0 && out[i] == a {
			pair, _ := redact.String(argv[i-1] + " " + a)
			if !strings.HasSuffix(pair, " "+a) {
				out[i] = redact.Mark
			}
		}
	}
	return out
}

// keepExplicit makes sure explicitly named files are kept even if absent.
func keepExplicit(paths, explicit []string) []string {
	have := map[string]bool{}
	for _, p := range paths {
		have[p] = true
	}
	for _, f := range explicit {
		if !have[f] {
			paths = append([]string{f}, paths...)
		}
	}
	return paths
}

func filesOf(st freshness.Stamp) []File {
	out := make([]File, len(st.Files))
	for i, f := range st.Files {
		out[i] = File{Path: f.Path, Exists: f.Existed}
	}
	return out
}

func (s *Service) cwdRel() string {
	if rel, err := s.WS.Rel(s.Cwd, "/"); err == nil {
		return rel
	}
	return s.Cwd
}

func (s *Service) save(ctx context.Context, c *capture, r *Record, argv []string) error {
	argvJSON, err := json.Marshal(argv)
	if err != nil {
		return err
	}
	if argv == nil {
		argvJSON = []byte("[]")
	}
	return s.Store.Update(ctx, func(tx *store.Tx) error {
		for i, k := range c.sinks {
			if k.size() == 0 {
				continue
			}
			b, err := tx.CommitBlob(k.blob)
			if err != nil {
				return err
			}
			r.blobs[i] = b.Digest.String()
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO records (kind, command, argv, root, cwd, label, intent,
			compressor, exit_code, started_at, duration_ms, stdout_blob, stderr_blob, stdout_bytes, stderr_bytes,
			raw_tokens, raw_tokens_exact, digest, digest_tokens, omitted, git_repo_id, git_branch, git_head,
			git_tree, git_dirty, is_git, stamped_at, redactions, inputs, file_clock_start)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.Kind, r.Command, string(argvJSON), r.root, r.Cwd, r.Label, r.Intent, r.Compressor, r.ExitCode,
			r.CreatedAt.UnixNano(), r.DurationMS, nullable(r.blobs[0]), nullable(r.blobs[1]),
			r.StdoutBytes, r.StderrBytes, r.RawTokens, r.RawTokensExact, r.Digest, r.DigestTokens, r.Omitted,
			r.stamp.Git.RepoID, r.stamp.Git.Branch, r.stamp.Git.Head, r.stamp.Git.Tree, r.stamp.Git.Dirty,
			r.stamp.Git.IsRepo, r.stamp.Stamped.UnixNano(), r.Redactions, inputsJSON(r.inputs, r.inputsGiven), r.fileStart.UnixNano())
		if err != nil {
			return fmt.Errorf("insert record: %w", err)
		}
		if r.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := insertFiles(ctx, tx, r.ID, r.stamp.Files); err != nil {
			return err
		}
		if err := insertStamps(ctx, tx, r.ID, r.stamp.Files); err != nil {
			return err
		}
		if err := insertFacts(ctx, tx, r.ID, r.facts); err != nil {
			return err
		}
		return leaveUnindexed(ctx, tx, r.ID, searchText(r))
	})
}

func insertFacts(ctx context.Context, tx *store.Tx, id int64, fs []facts.Fact) error {
	if len(fs) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO record_facts (record_id, kind, value) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, f := range fs {
		values := []string{f.Value}
		if short := facts.Short(f.Value); f.Kind == facts.Test && short != "" {
			values = append(values, short) // "TestAdd/neg" is found by "neg" too
		}
		for _, v := range values {
			if _, err := stmt.ExecContext(ctx, id, string(f.Kind), v); err != nil {
				return fmt.Errorf("insert fact %s: %w", v, err)
			}
		}
	}
	return nil
}

// searchText is what the index's facts column holds: the facts, the files,
// and the parts of every compound word of the record (fish and completions
// of fish_completions_test.go, Gen and Fish of GenFish), so that a part
// finds the whole.
func searchText(r *Record) string {
	text := r.factText + filesText(r.stamp)
	return text + "\n" + rank.PartsText(r.Command, r.Label, r.Digest, text)
}

// filesText lists the referenced paths for the full-text index.
func filesText(st freshness.Stamp) string {
	var b strings.Builder
	for _, f := range st.Files {
		b.WriteString(f.Path)
		b.WriteByte('\n')
	}
	return b.String()
}

func insertFiles(ctx context.Context, tx *store.Tx, id int64, files []freshness.FileStamp) error {
	if len(files) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO record_files
		(record_id, path, base, existed, is_dir, size, mtime_ns, sha256, git_clean, fp, notes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, f := range files {
		if _, err := stmt.ExecContext(ctx, id, f.Path, path.Base(f.Path), f.Existed, f.IsDir, f.Size, f.ModTime,
			f.Digest.String(), f.FP.String(), f.Notes); err != nil {
			return fmt.Errorf("insert record file %s: %w", f.Path, err)
		}
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
