package redact

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/logging"

	"github.com/freshctx/freshctx/internal/rx"
)

// engine is the compiled ruleset: gitleaks' default rules, freshctx's own,
// and one keyword trie that says which of them a line can match.
type engine struct {
	keywords *keywordIndex
	words    []string   // the prefilter's words, lower case, by keyword id
	targets  [][]target // by keyword id
	gitleaks []*leakRule
	own      []ownRule
}

type target struct {
	own bool
	i   int
	// gate, if set, is a cheap test of one keyword occurrence (line[s:e])
	// that must pass for the rule to run: it admits every line the rule
	// can match and turns away most of the rest.
	gate gate
	// lineWord, if set, is a word the line must hold for the rule to run,
	// looked for once per line.
	lineWord string
	// reaches says the rule has a reach, and so wants every admitted
	// occurrence, not only the first (freshctx's rules; a gitleaks rule
	// knows once it is translated, leakRule.ready).
	reaches bool
}

// wantsEvery reports whether t's rule has a reach.
func (e *engine) wantsEvery(t target) bool {
	if t.own {
		return t.reaches
	}
	return e.gitleaks[t.i].ready().reach != nil
}

type gate func(line []byte, s, e int) bool

// leakRule is one gitleaks rule, judged on its own (leak.go), so a line is
// checked only against the rules its keywords select. It is translated
// (its expressions compiled, its allowlists and reach made) the first time
// a line passes its keyword and gate: ready.
type leakRule struct {
	id string
	// windowed rules have run their expression in the gate, on the
	// stretch of line around a keyword a match can span.
	windowed bool
	span     [2]int // a windowed rule's leakSpans

	index   int                        // its place among gitleaks' rules (ruleConfig)
	globals func() []*config.Allowlist // the global allowlists, translated once
	once    sync.Once
	built   leakBuilt
}

// leakBuilt is what translating a rule makes.
type leakBuilt struct {
	re    *regexp.Regexp
	judge *leakJudge
	// reach bounds a windowed rule's match around an admitted occurrence:
	// on a long line the rule is judged there only (see windows).
	reach reach
}

// ready translates the rule, once. The default rules are compiled into
// gitleaks; one that does not translate is a broken build, as in rules.
func (g *leakRule) ready() *leakBuilt {
	g.once.Do(func() {
		src := ruleConfig(mustFullConfig(), g.index)
		cfg, err := src.Translate()
		r, ok := cfg.Rules[g.id]
		if err != nil || !ok || r.Regex == nil {
			panic(fmt.Sprintf("redact: gitleaks rule %s does not translate alone: %v", g.id, err))
		}
		r.Allowlists = light(r.Allowlists)
		judge := &leakJudge{rule: r, global: g.globals()}
		for _, k := range r.Keywords {
			judge.keywords = append(judge.keywords, strings.ToLower(k))
		}
		g.built = leakBuilt{re: r.Regex, judge: judge}
		if g.windowed {
			g.built.reach = leakReach(g.span)
		} else {
			g.built.reach = boundedReach(r.Regex.String(), r.Keywords)
		}
	})
	return &g.built
}

// rules builds the engine once per process, on the first line that holds a
// prefilter word: indexing the keywords of gitleaks' 200-odd rules from
// their heads (compiled in, heads.go) takes about 0.4 ms
// (BenchmarkRulesBuild); each
// rule is translated, and the whole configuration decoded (fullConfig),
// when a line first passes its keyword and gate.
var rules = sync.OnceValue(func() *engine {
	e, err := build()
	if err != nil {
		// The default configuration is compiled into gitleaks; failing to
		// load it is a broken build, not bad input.
		panic(fmt.Sprintf("redact: gitleaks default rules: %v", err))
	}
	built.Store(true)
	return e
})

// built says the ruleset exists: from then on its own prefilter is the
// only one a line goes through.
var built atomic.Bool

// quick finds the prefilter's words without the ruleset: building that
// takes about 0.4 ms (BenchmarkRulesBuild), which a line
// holding none of the words, as most command lines and labels, and
// all of an empty output, never needs. prefilterList is checked against
// the ruleset's own words by TestPrefilterListIsCurrent.
var quick = sync.OnceValue(func() *keywordIndex {
	x := newKeywordIndex(prefilterList)
	quickBuilt.Store(true)
	return x
})

// quickBuilt is set once quick's index is built; directBytes counts the
// bytes searched without it.
var (
	quickBuilt  atomic.Bool
	directBytes atomic.Int64
)

// A line of at most directLine bytes is searched word by word, without the
// index, while such lines add up to at most directBudget bytes. Building
// the index costs what about 300 bytes searched word by word do
// (BenchmarkPrefilterWays), and a process's first build also faults in
// its 100 KB of fresh memory, dearer than the build itself where page
// faults are dear: a process that redacts only its command line or a label
// (`run -- true`: 4 bytes, a microsecond) never builds it.
const (
	directLine   = 256
	directBudget = 1024
)

// mayHold reports whether line holds a word of the prefilter; false means
// no rule can match it.
func mayHold(line []byte) bool {
	if !quickBuilt.Load() && len(line) <= directLine && directBytes.Add(int64(len(line))) <= directBudget {
		return holdsWord(line)
	}
	found := false
	quick().scan(line, func(int, int, int) { found = true })
	return found
}

// holdsWord is mayHold without the index: line, folded as the index folds
// it, searched for each word in turn. len(line) <= directLine.
func holdsWord(line []byte) bool {
	var buf [directLine]byte
	folded := buf[:len(line)]
	for i, c := range line {
		folded[i] = rx.Lower[c]
	}
	s := string(folded)
	for _, w := range prefilterList {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func build() (*engine, error) {
	// gitleaks logs to stderr at info level; freshctx's stderr is the user's.
	logging.Logger = logging.Logger.Level(zerolog.Disabled)
	heads := defaultRuleHeads
	globals := sync.OnceValue(func() []*config.Allowlist {
		gc := globalConfig(mustFullConfig())
		cfg, err := gc.Translate()
		if err != nil {
			panic(fmt.Sprintf("redact: gitleaks' global allowlists do not translate: %v", err))
		}
		return light(cfg.Allowlists)
	})
	e := &engine{own: ownRules}
	index := map[string]int{}
	ids := make([]string, 0, len(heads))
	for i, r := range heads {
		if r.regex != "" && len(r.keywords) > 0 {
			ids = append(ids, r.id)
			index[r.id] = i
		}
	}
	// Specific rules first: the generic one then finds their secrets
	// already replaced.
	sort.Slice(ids, func(a, b int) bool {
		ga, gb := strings.Contains(ids[a], "generic"), strings.Contains(ids[b], "generic")
		if ga != gb {
			return gb
		}
		return ids[a] < ids[b]
	})
	pattern := map[string]int{}
	var words []string
	add := func(word string, t target) {
		word = strings.ToLower(word)
		id, ok := pattern[word]
		if !ok {
			id = len(words)
			pattern[word] = id
			words = append(words, word)
			e.targets = append(e.targets, nil)
		}
		e.targets[id] = append(e.targets[id], t)
	}
	for _, id := range ids {
		vr := heads[index[id]]
		keywords := make([]string, len(vr.keywords))
		for i, k := range vr.keywords {
			keywords[i] = strings.ToLower(k)
		}
		rule := &leakRule{id: id, index: index[id], globals: globals}
		g, ok := leakGates[id]
		if !ok {
			g = namedValueGate(vr.regex, keywords)
		}
		if rule.span, rule.windowed = leakSpans[id]; rule.windowed {
			g = inWindow(g, rule)
		}
		for _, k := range keywords {
			for _, w := range prefilterWords(id, k) {
				add(w, target{i: len(e.gitleaks), gate: g, lineWord: leakLineWords[id]})
			}
		}
		e.gitleaks = append(e.gitleaks, rule)
	}
	for i, o := range e.own {
		for _, h := range o.hints {
			add(h, target{own: true, i: i, gate: o.gate, reaches: o.reach != nil})
		}
	}
	e.keywords, e.words = newKeywordIndex(words), words
	return e, nil
}

// namedValueGate is separatorSoon for a rule built from gitleaks' template
// of a service's name and its value (namedValue), and admits every
// occurrence of any other rule's keyword. Whether a rule is one is read
// from its expression the first time a line holds one of its keywords:
// reading all 200-odd took 1.5 ms, a fifth of building the ruleset.
func namedValueGate(expr string, keywords []string) gate {
	named := sync.OnceValue(func() bool { return namedValue(expr, keywords) })
	return func(line []byte, s, e int) bool {
		return !named() || separatorSoon(line, s, e)
	}
}

// light returns copies of allowlists without the Aho-Corasick trie gitleaks
// builds over their stop words when it loads its configuration (8.6 MB for
// the default rules' 1,500 words, held as long as the process): without
// the trie gitleaks compares the stop words one by one, with the same
// answer, and it does so only for a secret a rule found. The copy keeps
// every exported field (TestLightAllowlistKeepsEveryField).
func light(as []*config.Allowlist) []*config.Allowlist {
	out := make([]*config.Allowlist, len(as))
	for i, a := range as {
		out[i] = &config.Allowlist{
			Description:    a.Description,
			MatchCondition: a.MatchCondition,
			Commits:        a.Commits,
			Paths:          a.Paths,
			RegexTarget:    a.RegexTarget,
			Regexes:        a.Regexes,
			StopWords:      a.StopWords,
		}
	}
	return out
}

// find adds the secrets the rule finds in the stretches ws of line or, if
// ws is nil, in all of it (leak.go judges each match as gitleaks does);
// each secret is then found wherever it occurs in line. The regular
// expression is tried first: most lines that hold a keyword hold no
// secret, and judging costs more than the match.
func (g *leakRule) find(line []byte, ws []span, fs []find) []find {
	if ws == nil {
		return g.findIn(line, line, fs)
	}
	for _, w := range ws {
		fs = g.findIn(line, line[w.start:w.end], fs)
	}
	return fs
}

func (g *leakRule) findIn(line, text []byte, fs []find) []find {
	b := g.ready()
	if !g.windowed && !b.re.Match(text) {
		return fs
	}
	rank := rankSpecific
	if strings.Contains(g.id, "generic") {
		rank = rankGeneric
	}
	for _, s := range b.judge.secrets(string(text)) {
		secret := []byte(s)
		if len(secret) == 0 || bytes.Contains(secret, []byte(Mark)) {
			continue
		}
		for from := 0; ; {
			i := bytes.Index(line[from:], secret)
			if i < 0 {
				break
			}
			fs = append(fs, find{start: from + i, end: from + i + len(secret), kind: g.id, rank: rank})
			from += i + len(secret)
		}
	}
	return fs
}

// prefilterWords are the words the prefilter looks for on behalf of one
// gitleaks keyword. Three keywords are two bytes long and common ("ey" is in
// "key", "sk" in "task", "s." ends sentences); each is replaced by what its
// rule's expression requires around it: a JWT's second part starts ".ey",
// a Twilio key is "SK" and a hex digit, a short Vault token "s." and a
// letter or digit.
func prefilterWords(rule, keyword string) []string {
	var next string
	switch {
	case rule == "jwt" && keyword == "ey":
		return []string{".ey"}
	case rule == "twilio-api-key" && keyword == "sk":
		next = "0123456789abcdef"
	case rule == "vault-service-token" && keyword == "s.":
		next = "0123456789abcdefghijklmnopqrstuvwxyz"
	default:
		return []string{keyword}
	}
	out := make([]string, len(next))
	for i := range next {
		out[i] = keyword + next[i:i+1]
	}
	return out
}

// leakGates narrow the gitleaks rules whose keywords are common words or
// fragments. Each admits every occurrence its rule's expression can match:
// the generic rules need one of their separators (`=`, `:`, `>`, `|`, `,`,
// `?=`) within 24 bytes of the keyword and a value of 10 bytes (the
// Terraform one 8), Twilio an upper-case `SK` and 32 hex
// digits, a short Vault token `s.` at a word's start and 24 letters or
// digits.
var leakGates = map[string]gate{
	"generic-api-key":       separatorWithin(24, "=:>|,?", 10),
	"hashicorp-tf-password": separatorWithin(24, "=:>|,?", 8),
	"twilio-api-key":        twilioGate,
	"vault-service-token":   vaultGate,
}

// leakLineWords narrow rules by a word their match needs somewhere on the
// line, ignoring case: a Kubernetes secret `data:`, curl's credentials the
// `-u`/`--user` or `-H`/`--header` flag.
var leakLineWords = map[string]string{
	"kubernetes-secret-yaml": "data:",
	"curl-auth-user":         "-u",
	"curl-auth-header":       "-h",
}

// leakSpans bound how far a match of the generic rules reaches before and
// after its keyword (a 50-byte name prefix; 20 bytes of name, quotes, the
// separator, 5 bytes of padding, a 150-byte value and its end): their
// expressions are run on that stretch only, not on a whole long line.
var leakSpans = map[string][2]int{
	"generic-api-key":       {50, 190},
	"hashicorp-tf-password": {50, 190},
}

// inWindow admits an occurrence that g admits and around which the rule's
// expression matches within its span.
func inWindow(g gate, rule *leakRule) gate {
	return func(line []byte, s, e int) bool {
		if g != nil && !g(line, s, e) {
			return false
		}
		return rule.ready().re.Match(line[max(0, s-rule.span[0]):min(len(line), e+rule.span[1])])
	}
}

// separatorWithin admits a keyword followed, within n bytes of word
// characters, `.`, `-`, white space and quotes, by one of seps and then,
// after at most nine more separator, quote, backtick or white space bytes
// (the rest of `:::=`, five of padding, the Terraform value's quote), a
// value of at least least letters, digits or `_.=-+/` that ends the line
// or is followed by what ends the rules' values (valueFollows).
func separatorWithin(n int, seps string, least int) gate {
	return func(line []byte, _, e int) bool {
		i := separatorAt(line, e, n, seps)
		return i >= 0 && valueFollows(line[i+1:], least)
	}
}

// separatorSoon is the gate of the rules gitleaks builds from one
// template, a service's name and then its value (namedValue): the name
// is followed, within 23 bytes of word characters, `.`, `-`, white space
// and quotes, by the first byte of a separator (`=`, `>`, `:`, `|`, `?=`,
// `,`).
func separatorSoon(line []byte, _, e int) bool { return separatorAt(line, e, 24, "=:>|,?") >= 0 }

// separatorAt returns where one of seps follows line[:e] within n bytes
// of word characters, `.`, `-`, white space and quotes, or -1.
func separatorAt(line []byte, e, n int, seps string) int {
	for i := e; i < len(line) && i < e+n; i++ {
		c := line[i]
		if strings.IndexByte(seps, c) >= 0 {
			return i
		}
		if !(rx.IsSpace(c) || c == '.' || c == '-' || c == '"' || c == '\'' || rx.IsWordByte(c)) {
			return -1
		}
	}
	return -1
}

// valueFollows reports whether b starts with what may come between a
// separator and a value, then a value of at least least bytes that ends
// as both rules' expressions end a match, `(?:[\x60'"\s;]|\\[nr]|$)`. Every
// byte of their values is a value byte (isValue) and no byte of that end
// is, so a match's value runs to the end of the value bytes: whether it
// begins at the padding's last `=` or after it, it ends where the run does.
func valueFollows(b []byte, least int) bool {
	i := 0
	for i < len(b) && i < 9 && (rx.IsSpace(b[i]) || strings.IndexByte("=>:|?`'\"", b[i]) >= 0) {
		i++
	}
	n := run(b[i:], isValue)
	if n < least {
		return false
	}
	return i+n == len(b) || endsValue(b[i+n])
}

// endsValue reports whether c may follow a generic rule's value: a quote,
// a backtick, white space, `;`, or the `\` of an escaped newline.
func endsValue(c byte) bool {
	return rx.IsSpace(c) || strings.IndexByte("`'\";\\", c) >= 0
}

func isValue(c byte) bool {
	return rx.IsWordByte(c) || c == '.' || c == '=' || c == '-' || c == '+' || c == '/'
}

func twilioGate(line []byte, s, _ int) bool {
	return line[s] == 'S' && line[s+1] == 'K' && run(line[s+2:], isHex) >= 32
}

func vaultGate(line []byte, s, _ int) bool {
	if rx.Lower[line[s]] == 'h' {
		return true // "hvs."
	}
	return (s == 0 || !rx.IsWordByte(line[s-1])) && run(line[s+2:], isAlnum) >= 24
}

// run counts the leading bytes of b that are in class.
func run(b []byte, class func(byte) bool) int {
	for i, c := range b {
		if !class(c) {
			return i
		}
	}
	return len(b)
}

func isAlnum(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' }
func isHex(c byte) bool   { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }

// containsFold reports whether b holds lower (lower case), ignoring case.
func containsFold(b []byte, lower string) bool {
	for i := 0; i+len(lower) <= len(b); i++ {
		if equalFold(b[i:i+len(lower)], []byte(lower)) {
			return true
		}
	}
	return false
}

// ungated turns the gates off, for tests that check each admits every
// occurrence its rule's expression can match.
var ungated bool

// scratch is a Redactor's reusable buffers for the prefilter.
type scratch struct {
	seen []bool
	hit  hitList
	// occ holds, by rule (gitleaks' first, then freshctx's), the
	// occurrences its gate admitted in the last line.
	occ [][]span
	win []span
	// holds caches, by rule, whether the line holds its lineWord:
	// 0 not looked for yet, 1 yes, 2 no; looked lists the rules set.
	holds  []int8
	looked []int
	// rejected says a gate turned an occurrence away in the last line.
	rejected bool
}

type hitList struct {
	gitleaks []int
	own      []int
}

// hits lists the rules whose keywords line holds (and whose gates admit
// them, unless open), or nil if none does.
func (s *scratch) hits(e *engine, line []byte, open bool) *hitList {
	for _, i := range s.hit.gitleaks {
		s.occ[i] = s.occ[i][:0]
	}
	for _, i := range s.hit.own {
		s.occ[len(e.gitleaks)+i] = s.occ[len(e.gitleaks)+i][:0]
	}
	s.hit.gitleaks, s.hit.own = s.hit.gitleaks[:0], s.hit.own[:0]
	n := len(e.gitleaks) + len(e.own)
	if len(s.seen) < n {
		s.seen = make([]bool, n)
		s.occ = make([][]span, n)
		s.holds = make([]int8, n)
	}
	for _, k := range s.looked {
		s.holds[k] = 0
	}
	s.looked = s.looked[:0]
	// Only a line long enough for windows needs every occurrence a gate
	// admits; otherwise the first settles that the rule runs.
	every := len(line) >= windowFrom && !open
	s.rejected = false
	e.keywords.scan(line, func(word, start, end int) {
		for _, t := range e.targets[word] {
			k := t.i
			if t.own {
				k += len(e.gitleaks)
			}
			if s.seen[k] && !(every && e.wantsEvery(t)) {
				continue
			}
			if !open && !ungated && (t.lineWord != "" && !s.lineHolds(line, k, t.lineWord) ||
				t.gate != nil && !t.gate(line, start, end)) {
				s.rejected = true
				continue
			}
			if every {
				s.occ[k] = append(s.occ[k], span{start, end})
			}
			if s.seen[k] {
				continue
			}
			s.seen[k] = true
			if t.own {
				s.hit.own = append(s.hit.own, t.i)
			} else {
				s.hit.gitleaks = append(s.hit.gitleaks, t.i)
			}
		}
	})
	if len(s.hit.gitleaks) == 0 && len(s.hit.own) == 0 {
		return nil
	}
	for _, i := range s.hit.gitleaks {
		s.seen[i] = false
	}
	for _, i := range s.hit.own {
		s.seen[len(e.gitleaks)+i] = false
	}
	sort.Ints(s.hit.gitleaks)
	sort.Ints(s.hit.own)
	return &s.hit
}

// windows returns the stretches of line rule k (as in occ) runs on, or nil
// for all of line: unless windowed, or for a rule without a reach.
func (s *scratch) windows(line []byte, k int, r reach, windowed, separate bool) []span {
	if r == nil || !windowed {
		return nil
	}
	s.win = windows(line, s.occ[k], r, separate, s.win)
	return s.win
}

// lineHolds reports whether line holds word, looking once per line and rule.
func (s *scratch) lineHolds(line []byte, k int, word string) bool {
	if s.holds[k] == 0 {
		s.holds[k] = 2
		if containsFold(line, word) {
			s.holds[k] = 1
		}
		s.looked = append(s.looked, k)
	}
	return s.holds[k] == 1
}
