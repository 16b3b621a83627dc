package readcache

// Form is how a client turns a file's bytes into the text it delivers to
// the model, and how it sends that text. A read recorded in a client's form
// (ReadRequest.Form) is compared with what the client delivered, kept and
// diffed as that text: a client that normalises what it reads (Claude Code
// drops the "\r" of "\r\n" and a byte-order mark, and shows bytes that are
// not UTF-8 as U+FFFD) still gets notes for such files, and never one about
// text it did not deliver. A version in a client's form is named by the
// digest of that text, so it never passes for the bytes of the file.
type Form interface {
	// Text is the text the client delivers for a file's bytes.
	Text(b []byte) string
	// TotalLines is how many lines the client says text has.
	TotalLines(text string) int
	// Sent is text as the client sends it to the model when it delivers
	// it as lines numbered from start (its own line numbers added): what
	// a replacement is priced at.
	Sent(text string, start int) string
	// Numbered reports whether Sent starts every line with its number:
	// then text sent has at least as many tokens as lines, a bound that
	// can decide between a note and the text without counting them.
	Numbered() bool
}
