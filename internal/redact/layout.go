package redact

import (
	"bytes"
	"strconv"
)

// Secrets that only a file's layout over several lines shows: a .netrc
// entry whose tokens stand on lines of their own, and the private lines of
// a PuTTY key (.ppk). Their state lives in the Redactor, as a private key
// block's does.

// layout is a Redactor's state for the multi-line formats.
type layout struct {
	netrc    bool // inside a .netrc entry: its lines hold only tokens
	ppkLines int  // private lines of a PuTTY key still to drop
}

// maxPPKLines bounds how many lines a PuTTY header may make Line drop (a
// 4096-bit RSA key has 14); a line that is not base64 ends them sooner.
const maxPPKLines = 64

var ppkHeader = []byte("Private-Lines:")

// ppk handles a PuTTY key's private lines: their header keeps its count
// and gains Mark, and each line of key material after it is dropped whole
// (nil, as in a private key block). ok says the line was one of them.
func (r *Redactor) ppk(line []byte) (out []byte, ok bool) {
	if r.ppkLines > 0 {
		if isBase64Line(line) {
			r.ppkLines--
			return nil, true
		}
		r.ppkLines = 0
	}
	if len(line) == 0 || line[0] != 'P' || !bytes.HasPrefix(line, ppkHeader) {
		return nil, false
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(line[len(ppkHeader):])))
	if err != nil || n <= 0 {
		return nil, false
	}
	r.ppkLines = min(n, maxPPKLines)
	r.found("putty-private-key")
	return append(append([]byte{}, line...), " "+Mark...), true
}

func isBase64Line(line []byte) bool {
	line = bytes.TrimRight(line, "\r")
	if len(line) == 0 {
		return false
	}
	for _, c := range line {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// netrcValued are the .netrc tokens followed by a value; of these,
// password and account hold secrets.
var netrcValued = map[string]bool{"machine": true, "login": true, "password": true, "account": true, "port": true}

// netrcFinds lists the password and account values of a .netrc line. An
// entry starts at a line whose first token is `machine` or `default`;
// the lines after it belong to it while they hold only .netrc tokens (a
// `macdef`, or any other line, ends it). Outside an entry nothing is
// found, so prose that says "password reset" is left alone.
func (r *Redactor) netrcFinds(line []byte) []find {
	if !r.netrc {
		i := 0
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) || line[i] != 'm' && line[i] != 'd' {
			return nil // the common case, decided on one byte
		}
	}
	fields := fieldSpans(line)
	if len(fields) == 0 {
		return nil // a blank line does not end an entry
	}
	if w := string(line[fields[0].start:fields[0].end]); !r.netrc && w != "machine" && w != "default" {
		return nil
	}
	var fs []find
	for i := 0; i < len(fields); i++ {
		switch tok := string(line[fields[i].start:fields[i].end]); {
		case tok == "default":
		case netrcValued[tok] && i+1 < len(fields):
			i++
			if v := fields[i]; (tok == "password" || tok == "account") && !placeholder(line[v.start:v.end]) {
				fs = append(fs, find{start: v.start, end: v.end, kind: "netrc-password", rank: rankOwn})
			}
		default: // not a .netrc line, or a macdef: the entry is over
			r.netrc = false
			return nil
		}
	}
	r.netrc = true
	return fs
}

// fieldSpans are the runs of line between spaces and tabs.
func fieldSpans(line []byte) []span {
	var out []span
	start := -1
	for i, c := range line {
		if c == ' ' || c == '\t' || c == '\r' {
			if start >= 0 {
				out = append(out, span{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, span{start, len(line)})
	}
	return out
}
