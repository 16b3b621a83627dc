package redact

import (
	"bytes"
	"math"
	"strings"

	"github.com/freshctx/freshctx/internal/rx"
)

// ownRule is one of freshctx's rules for secrets gitleaks leaves out.
type ownRule struct {
	kind string
	// hints are lowercase keywords one of which every match contains.
	hints []string
	re    *rx.Regexp
	// group is the submatch that is the secret.
	group int
	// valid, if set, decides from the whole submatch list whether the
	// value is a secret (an assignment's value must look like one).
	valid func(line []byte, loc []int) bool
	// rank orders overlapping finds (rankOwn unless set).
	rank int
	// gate, if set, must admit a hint occurrence for the rule to run.
	gate gate
	// reach, if set, bounds a match around an admitted occurrence: on a
	// long line the expression runs there only (see windows).
	reach reach
	// matches, if set, is what the expression's FindAllSubmatchIndex
	// would find in a window, found for less.
	matches func(b []byte) [][]int
	// shaped: the secret's own shape says what it is (a vendor's prefix),
	// so it is redacted also where it stands in a path (a token in a URL:
	// POST /hooks/slack/xoxb-…), which is otherwise never touched.
	shaped bool
}

// Submatch groups of the assignment rule.
const (
	assignKey   = 1
	assignWord  = 2
	assignValue = 3
)

var ownRules = []ownRule{
	{kind: "url-credentials", hints: []string{"://"},
		re:    rx.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@"'<>]*:([^\s@/"'<>]+)@[^\s/@]`),
		group: 1, valid: notPlaceholder(1), reach: urlReach},
	{kind: "password-flag",
		hints: []string{"-pass", "-pwd", "-token", "-secret", "-api", "-access", "-client", "-auth", "-private"},
		re:    rx.MustCompile(`(?i)(?:^|[\s"'])--?(?:password|passwd|pass|pwd|token|secret|api[-_]?key|access[-_]?key|secret[-_]?key|client[-_]?secret|auth[-_]?token|private[-_]?key)(?:=|\s+)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`),
		group: 1, valid: notPlaceholder(1), reach: flagReach},
	{kind: "secret-assignment",
		hints: []string{"password", "passwd", "passphrase", "pass", "pwd", "secret", "token", "apikey", "key", "credentials", "credential"},
		re:    rx.MustCompile(`(?i)` + assignLead + assignRest),
		group: assignValue, valid: secretAssignment, rank: rankAssignment, gate: assignmentGate,
		reach: assignmentReach, matches: assignMatches},
	{kind: "azure-storage-key", hints: []string{"accountkey="},
		re: rx.MustCompile(`(?i)AccountKey=([A-Za-z0-9+/]{40,}={0,2})`), group: 1},
	{kind: "azure-sas-signature", hints: []string{"sig="},
		re: rx.MustCompile(`(?i)[?&;]sig=([A-Za-z0-9%+/]{16,}(?:=|%3d){0,2})`), group: 1},
	{kind: "stripe-webhook-secret", hints: []string{"whsec_"},
		re: rx.MustCompile(`\b(whsec_[A-Za-z0-9+/=]{24,})`), group: 1},
	{kind: "google-oauth-client-secret", hints: []string{"gocspx-"},
		re: rx.MustCompile(`\b(GOCSPX-[A-Za-z0-9_-]{28})`), group: 1},
	{kind: "authorization-header", hints: []string{"authorization"},
		re:    rx.MustCompile(`(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:[a-z][a-z0-9._-]{0,30}\s+)?([^\s"',;]{8,})`),
		group: 1, valid: notCode(notPlaceholder(1), 1), gate: headerGate, reach: headerReach},
	{kind: "api-key-header", hints: []string{"x-api-key", "x-auth-token", "x-access-token"},
		re:    rx.MustCompile(`(?i)\bx-(?:api-key|auth-token|access-token)["']?\s*:\s*["']?([^\s"',;]{8,})`),
		group: 1, valid: notPlaceholder(1)},
	{kind: "bearer-token", hints: []string{"bearer"},
		re: rx.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), group: 1},
	{kind: "discord-webhook-url", hints: []string{"discord"},
		re: rx.MustCompile(`(?i)discord(?:app)?\.com/api/webhooks/\d+/([\w-]{60,})`), group: 1},
	// Passwords given on a client's command line in its own form.
	{kind: "mysql-password", hints: []string{"mysql", "mariadb"},
		re:    rx.MustCompile(`\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p([^\s"'-][^\s"']*)`),
		group: 1, valid: notPlaceholder(1)},
	{kind: "sshpass-password", hints: []string{"sshpass"},
		re: rx.MustCompile(`\bsshpass\s+(?:-[a-oq-z]\s+\S+\s+)*-p\s*("[^"]*"|'[^']*'|\S+)`), group: 1, valid: notPlaceholder(1)},
	{kind: "docker-login-password", hints: []string{"docker"},
		re:    rx.MustCompile(`\bdocker\s+login\b[^\n|;&]*?\s-p\s+("[^"]*"|'[^']*'|\S+)`),
		group: 1, valid: notPlaceholder(1)},
	{kind: "redis-password", hints: []string{"redis-cli"},
		re: rx.MustCompile(`\bredis-cli\b[^\n|;&]*?\s-a\s+("[^"]*"|'[^']*'|\S+)`), group: 1, valid: notPlaceholder(1)},
	{kind: "redis-auth", hints: []string{"auth", "requirepass"},
		re:    rx.MustCompile(`(?:^|[>\s])(?:AUTH|auth|requirepass|masterauth)\s+(?:\S+\s+)?("[^"]*"|'[^']*'|[^\s"']+)\s*$`),
		group: 1, valid: passwordShaped(1), gate: wordThenSpace},
	{kind: "openssl-pass", hints: []string{"-pass"},
		re: rx.MustCompile(`(?i)-pass(?:in|out)?\s+pass:("[^"]*"|'[^']*'|\S+)`), group: 1, valid: notPlaceholder(1), gate: opensslPassGate},
	// Files' own formats.
	{kind: "kubeconfig-client-key", hints: []string{"client-key-data"},
		re: rx.MustCompile(`client-key-data["']?\s*:\s*["']?([A-Za-z0-9+/=]{16,})`), group: 1},
	// An AWS secret key that begins with "/" (about one in 120) reads as a
	// path to the assignment rule.
	{kind: "aws-secret-access-key", hints: []string{"access"},
		re:    rx.MustCompile(`(?i)secret_?access_?key["']?\s*[:=]\s*["']?(/[A-Za-z0-9/+]{39})(?:[^A-Za-z0-9/+]|$)`),
		group: 1, shaped: true, gate: secretAccessGate},
	// Vendors' tokens whose shape alone says what they are.
	{kind: "google-oauth-access-token", hints: []string{"ya29."},
		re: rx.MustCompile(`\b(ya29\.[A-Za-z0-9_-]{20,})`), group: 1, shaped: true},
	{kind: "telegram-bot-token", hints: []string{"telegram"},
		re: rx.MustCompile(`(?:^|[/\s"'=])bot(\d{6,12}:[A-Za-z0-9_-]{30,40})\b`), group: 1, shaped: true},
	{kind: "square-secret", hints: []string{"sq0csp-", "sq0atp-"},
		re: rx.MustCompile(`\b(sq0(?:csp|atp)-[A-Za-z0-9_-]{22,})`), group: 1, shaped: true},
	{kind: "mapbox-secret-token", hints: []string{"sk.ey"},
		re: rx.MustCompile(`\b(sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{10,})`), group: 1, shaped: true},
	{kind: "bitbucket-api-token", hints: []string{"atbb"},
		re: rx.MustCompile(`\b(ATBB[A-Za-z0-9_=.-]{28,})`), group: 1, shaped: true},
	{kind: "slack-token", hints: []string{"xox"},
		re: rx.MustCompile(`(?:^|[^A-Za-z0-9])(xox[abposr]-[0-9A-Za-z-]{20,})`), group: 1, shaped: true},
	{kind: "netrc-password", hints: []string{"machine"},
		re:    rx.MustCompile(`(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S+)`),
		group: 1, valid: notPlaceholder(1)},
}

// find adds each valid match's secret group, matching the stretches ws
// of line or, if ws is nil, all of it.
func (o *ownRule) find(line []byte, ws []span, fs []find) []find {
	if ws == nil {
		return o.findIn(line, span{0, len(line)}, fs)
	}
	for _, w := range ws {
		fs = o.findIn(line, w, fs)
	}
	return fs
}

func (o *ownRule) findIn(line []byte, w span, fs []find) []find {
	matches := o.re.Std().FindAllSubmatchIndex
	if o.matches != nil {
		matches = func(b []byte, _ int) [][]int { return o.matches(b) }
	}
	for _, loc := range matches(line[w.start:w.end], -1) {
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += w.start
			}
		}
		s, e := loc[2*o.group], loc[2*o.group+1]
		if s < 0 || e <= s {
			continue
		}
		val := line[s:e]
		// A password after its key may read as a file reference
		// (`password=Summer.Fun:2024`): where the key says password, the
		// value is one.
		shaped := o.shaped || o.group == assignValue && passwordWord(bytes.ToLower(line[loc[2*assignWord]:loc[2*assignWord+1]])) &&
			notAPath(unquote(val))
		if bytes.Contains(val, []byte(Mark)) || o.valid != nil && !o.valid(line, loc) || !shaped && isFileRef(unquote(val)) {
			continue
		}
		fs = append(fs, find{start: s, end: e, kind: o.kind, rank: max(o.rank, rankOwn), shaped: shaped})
	}
	return fs
}

// notCode wraps valid to turn away a value that is code, as minified
// JavaScript assigns `X.prototype.authorization=function(e){…}`: a token
// holds no braces or parentheses.
func notCode(valid func([]byte, []int) bool, group int) func([]byte, []int) bool {
	return func(line []byte, loc []int) bool {
		return !bytes.ContainsAny(line[loc[2*group]:loc[2*group+1]], "(){}") && valid(line, loc)
	}
}

// headerGate admits `authorization` followed, as the expression requires,
// by an optional quote, white space, `:` or `=`, white space, an optional
// quote and then a run of five bytes or more (a scheme, `basic` the
// shortest, or credentials of eight): code's `req.authorization(`,
// `x.authorization?` and `e.authorization=t` are turned away.
func headerGate(line []byte, _, e int) bool {
	if e < len(line) && (line[e] == '"' || line[e] == '\'') {
		e++
	}
	e = skipSpace(line, e)
	if e >= len(line) || line[e] != ':' && line[e] != '=' {
		return false
	}
	e = skipSpace(line, e+1)
	if e < len(line) && (line[e] == '"' || line[e] == '\'') {
		e++
	}
	n := headerRun(line, e)
	if n >= 5 {
		return true
	}
	// A short scheme of its own (Okta's SSWS), then the credentials.
	next := skipSpace(line, e+n)
	return n >= 1 && next > e+n && headerRun(line, next) >= 8
}

// headerRun is how long the run of bytes from e is that a header value holds.
func headerRun(line []byte, e int) int {
	n := 0
	for e+n < len(line) && !rx.IsSpace(line[e+n]) && strings.IndexByte(`"',;`, line[e+n]) < 0 {
		n++
	}
	return n
}

// wordThenSpace admits a hint that stands as a word of its own (at the
// line's start, or after white space or a prompt's '>') followed by white
// space: `AUTH pw`, `requirepass pw`, not `authority` or `OAuth`.
func wordThenSpace(line []byte, s, e int) bool {
	before := s == 0 || line[s-1] == '>' || rx.IsSpace(line[s-1])
	return before && e < len(line) && rx.IsSpace(line[e])
}

// secretAccessGate admits the "access" of `secret_access_key` and
// `SecretAccessKey`: "secret" just before it.
func secretAccessGate(line []byte, s, _ int) bool {
	from := max(0, s-7)
	return bytes.Contains(bytes.ToLower(line[from:s]), []byte("secret"))
}

// opensslPassGate admits the "-pass" of `-passin pass:PW` (and -passout,
// -pass): the option, white space, then "pass:". The keyword is the one
// the password-flag rule looks for already, so the lines of go test, every
// one of whose `--- PASS:` holds "pass:", cost nothing more.
func opensslPassGate(line []byte, _, e int) bool {
	rest := line[e:]
	for _, suffix := range []string{"in", "out"} {
		if len(rest) >= len(suffix) && strings.EqualFold(string(rest[:len(suffix)]), suffix) {
			rest = rest[len(suffix):]
			break
		}
	}
	t := bytes.TrimLeft(rest, " \t")
	return len(t) < len(rest) && len(t) >= 5 && strings.EqualFold(string(t[:5]), "pass:")
}

// pgpassLine is a .pgpass entry, host:port:database:user:password. It
// has no keyword of its own (every file:line reference holds a colon), so
// it is not among the keyed rules: finds tries it on a line of one word
// with four colons (pgpassGate).
var pgpassLine = ownRule{kind: "pgpass-line",
	re:    rx.MustCompile(`^\s*[^\s:#]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:(\S+)\s*$`),
	group: 1, valid: passwordShaped(1)}

// pgpassGate admits a line that can be a .pgpass entry — one word of four
// colons, host:port:database:user:password — looked at once, at its first
// colon: every file:line reference holds a colon too.
func pgpassGate(line []byte) bool {
	t := bytes.TrimSpace(line)
	return bytes.Count(t, []byte{':'}) == 4 && bytes.IndexAny(t, " \t") < 0
}

// isCall reports whether the value ending at end is a function called:
// `(` follows it.
func isCall(line []byte, end int) bool { return end < len(line) && line[end] == '(' }

// passwordShaped admits a value that looks like a password, as an
// assignment's must: four bytes or more, not a placeholder, with a digit,
// a symbol or mixed case.
func passwordShaped(group int) func([]byte, []int) bool {
	return func(line []byte, loc []int) bool {
		v := unquote(line[loc[2*group]:loc[2*group+1]])
		return len(v) >= 4 && !placeholder(v) && (hasDigit(v) || hasSymbol(v) || mixedCase(v))
	}
}

func notPlaceholder(group int) func([]byte, []int) bool {
	return func(line []byte, loc []int) bool {
		return !placeholder(unquote(line[loc[2*group]:loc[2*group+1]]))
	}
}

// assignmentGate admits a key word that ends a compound name (`DB_PASS`,
// `apiKey`, or any `…token`/`…secret`/`…password`) followed by `=` or `:`
// after an optional quote and spaces, as the expression requires, and
// then by a value of four bytes or more, as secretAssignment does:
// `--- PASS: TestX` and `keyboard` are turned away before it runs, and
// every occurrence a match can end its name with is admitted, which the
// rule's reach relies on.
func assignmentGate(line []byte, s, e int) bool {
	word := line[s:e]
	if (len(word) == 3 || len(word) == 4) && !bytes.EqualFold(word, []byte("pwd")) {
		// "key", "pass": only as the end of a compound name
		if s == 0 {
			return false
		}
		p := line[s-1]
		if !(p == '_' || p == '-' || p == '.' || ('a' <= p|0x20 && p|0x20 <= 'z' || '0' <= p && p <= '9') && word[0] >= 'A' && word[0] <= 'Z') {
			return false
		}
	}
	i := e
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		i++
	}
	i = skipSpace(line, i)
	if i >= len(line) || line[i] != '=' && line[i] != ':' {
		return false
	}
	// secretAssignment wants four bytes of value at least
	vs, ve := assignedValue(line, e)
	n := ve - vs
	if n > 0 && (line[vs] == '"' || line[vs] == '\'') {
		n -= 2
	}
	return n >= 4
}

// secretAssignment decides whether `KEY = value` holds a secret. The key
// must end in a secret's word (`DB_PASS`, `SIGNING_KEY`, `apiToken`, not
// `bypass`, `TOKEN_TTL` or `primary_key`) and the value must have a
// secret's shape: a password has a digit, a symbol or mixed case (or is
// quoted); a key or token is long and varied. Numbers, placeholders, paths
// and words are not secrets.
func secretAssignment(line []byte, loc []int) bool {
	key := line[loc[2*assignKey]:loc[2*assignKey+1]]
	word := bytes.ToLower(line[loc[2*assignWord]:loc[2*assignWord+1]])
	raw := line[loc[2*assignValue]:loc[2*assignValue+1]]
	quoted := raw[0] == '"' || raw[0] == '\''
	val := unquote(raw)
	// A password may look like a dotted name (`Summer.Fun2024`, or with a
	// colon, `Summer.Fun:2024`) where a name ends in no digit.
	pw := passwordWord(word) && hasDigit(val)
	if !secretKey(key, word) || placeholder(val) || allDigits(val) || dottedName(val) && !pw {
		return false
	}
	if !quoted && (isCall(line, loc[2*assignValue+1]) || dottedName(bytes.TrimRight(val, "?:!|&")) && !pw) {
		return false // `KEY = ITERATOR_HELPER()`, `credentials:this.withCredentials?…`
	}
	switch string(word) {
	case "password", "passwd", "passphrase", "pass", "pwd":
		if quoted {
			return len(val) >= 4
		}
		return len(val) >= 4 && (hasDigit(val) || hasSymbol(val) || mixedCase(val))
	}
	return len(val) >= 8 && (entropy(val) >= 3.0 || (hasDigit(val) && hasLetter(val)))
}

// notAPath reports whether a value that reads as a file reference is none:
// it names no folder, and what would be its extension is no file's (it
// holds a capital: `Summer.Fun:2024`, not `config.yaml:3`).
func notAPath(v []byte) bool {
	if bytes.IndexByte(v, '/') >= 0 {
		return false
	}
	dot := bytes.LastIndexByte(v, '.')
	if dot < 0 {
		return true
	}
	ext := v[dot+1:]
	if i := bytes.IndexByte(ext, ':'); i >= 0 {
		ext = ext[:i]
	}
	return bytes.ContainsFunc(ext, func(r rune) bool { return r >= 'A' && r <= 'Z' })
}

func passwordWord(w []byte) bool {
	switch string(w) {
	case "password", "passwd", "passphrase", "pass", "pwd":
		return true
	}
	return false
}

// notKeys are key names ending in "key" that name no secret.
var notKeys = [][]byte{
	[]byte("public"), []byte("pub"), []byte("primary"), []byte("foreign"), []byte("sort"),
	[]byte("partition"), []byte("cache"), []byte("idempotency"), []byte("hash"), []byte("lookup"),
	[]byte("map"), []byte("index"), []byte("unique"), []byte("row"), []byte("range"), []byte("hot"),
	[]byte("group"), []byte("routing"), []byte("dedup"), []byte("shortcut"), []byte("i18n"),
}

func secretKey(key, word []byte) bool {
	n := len(key) - len(word)
	switch string(word) {
	case "pass", "key":
	default:
		return true
	}
	if n == 0 {
		return false // a bare `key:` or `PASS:` is everywhere
	}
	// `DB_PASS`, `dbPass`, `SIGNING_KEY`, `apiKey`; not `bypass` or `monkey`.
	if !bytes.ContainsRune([]byte("_-."), rune(key[n-1])) && key[n] != 'P' && key[n] != 'K' {
		return false
	}
	stem := bytes.TrimRight(bytes.ToLower(key[:n]), "_-.")
	for _, no := range notKeys {
		if bytes.HasSuffix(stem, no) {
			return false
		}
	}
	return true
}

func unquote(v []byte) []byte {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return bytes.Trim(v, `"'`)
}

var placeholders = map[string]bool{
	"null": true, "none": true, "nil": true, "true": true, "false": true, "undefined": true,
	"required": true, "optional": true, "string": true, "redacted": true, "changeme": true,
	"example": true, "secret": true, "password": true, "token": true, "your_token": true,
	"your-token": true, "xxx": true, "placeholder": true, "empty": true, "unset": true,
}

// placeholder reports values that stand for a secret without being one:
// variables, templates, masks and the usual filler words.
func placeholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '$', '%', '<', '[', '*', '{', '=':
		return true
	}
	if bytes.HasPrefix(v, []byte("…")) || len(bytes.Trim(v, "x*X.")) == 0 {
		return true
	}
	return placeholders[string(bytes.ToLower(v))]
}

// dottedName is a reference like `process.env.TOKEN` or `cfg.api_key`.
var dottedNameRe = rx.MustCompile(`^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$`)

func dottedName(v []byte) bool { return dottedNameRe.Match(v) }

func allDigits(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func hasDigit(v []byte) bool { return bytes.ContainsAny(v, "0123456789") }

func hasLetter(v []byte) bool {
	for _, c := range v {
		if 'a' <= c|0x20 && c|0x20 <= 'z' {
			return true
		}
	}
	return false
}

func hasSymbol(v []byte) bool {
	for _, c := range v {
		if !('a' <= c|0x20 && c|0x20 <= 'z') && !('0' <= c && c <= '9') {
			return true
		}
	}
	return false
}

// mixedCase: an upper-case letter after the first character and a lower-case
// one somewhere (`Required` is a word, `hUnter` is not).
func mixedCase(v []byte) bool {
	upper, lower := false, false
	for i, c := range v {
		if 'A' <= c && c <= 'Z' && i > 0 {
			upper = true
		}
		if 'a' <= c && c <= 'z' {
			lower = true
		}
	}
	return upper && lower
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	var counts [256]int
	for _, c := range v {
		counts[c]++
	}
	var h float64
	n := float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
