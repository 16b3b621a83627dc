package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// init edits a user's JSON configuration as text: what freshctx adds is
// inserted where it belongs and every other byte stays as it was — the
// user's layout, key order, numbers written as they wrote them
// (9007199254740993, 1e2), and every key, where decoding and encoding the
// file again would drop the first of two keys of one name. A key freshctx
// must add under that is there twice is refused: which one the agent reads
// is not freshctx's guess.

// jsonValue is a value's place in a document: doc[start:end].
type jsonValue struct{ start, end int }

// jsonMember is one member of an object: its key, where its key starts,
// and its value's place.
type jsonMember struct {
	key      string
	keyStart int
	val      jsonValue
}

// objectMembers lists the members of the object at doc[v.start:v.end], in
// order.
func objectMembers(doc []byte, v jsonValue) ([]jsonMember, error) {
	dec := json.NewDecoder(bytes.NewReader(doc[v.start:v.end]))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []jsonMember
	for dec.More() {
		keyStart := v.start + int(dec.InputOffset())
		for doc[keyStart] != '"' { // white space and the comma before the key
			keyStart++
		}
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := v.start + int(dec.InputOffset())
		out = append(out, jsonMember{key: key, keyStart: keyStart, val: jsonValue{end - len(raw), end}})
	}
	return out, nil
}

// member finds key among ms; twice is an error.
func member(ms []jsonMember, key, file, where string) (jsonMember, bool, error) {
	var found []jsonMember
	for _, m := range ms {
		if m.key == key {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		return jsonMember{}, false, nil
	case 1:
		return found[0], true, nil
	}
	return jsonMember{}, false, fmt.Errorf("%s: %s%q is there %d times; which one the agent reads is not freshctx's guess: merge them by hand, then run init again",
		file, where, key, len(found))
}

// insertion is text to put at an offset of a document.
type insertion struct {
	at   int
	text string
}

// apply puts every insertion in doc (offsets of the original).
func apply(doc []byte, ins []insertion) []byte {
	var b bytes.Buffer
	prev := 0
	for _, in := range sortedInsertions(ins) {
		b.Write(doc[prev:in.at])
		b.WriteString(in.text)
		prev = in.at
	}
	b.Write(doc[prev:])
	return b.Bytes()
}

func sortedInsertions(ins []insertion) []insertion {
	out := slices.Clone(ins)
	slices.SortStableFunc(out, func(a, b insertion) int { return a.at - b.at })
	return out
}

// newMember is a member to add to an object.
type newMember struct {
	key   string
	value any
}

// addMembers is the insertion that adds members to the object at v, whose
// members are ms, after its last member (or inside an empty one),
// indented as its members are.
func addMembers(doc []byte, v jsonValue, ms []jsonMember, add []newMember) (insertion, error) {
	indent := lineIndent(doc, v.start) + "  "
	at, sep, end := v.start+1, "\n"+indent, "\n"+lineIndent(doc, v.start)
	if len(ms) > 0 {
		last := ms[len(ms)-1]
		indent = lineIndent(doc, last.val.start)
		at, sep, end = last.val.end, ",\n"+indent, ""
		if !bytes.Contains(doc[v.start:last.val.start], []byte("\n")) {
			sep = ", " // an object written on one line stays on one
		}
	}
	var b strings.Builder
	for i, m := range add {
		k, err := json.Marshal(m.key)
		if err != nil {
			return insertion{}, err
		}
		body, err := indented(m.value, indent)
		if err != nil {
			return insertion{}, err
		}
		if i > 0 {
			sep = ",\n" + indent
		}
		b.WriteString(sep + string(k) + ": " + body)
	}
	b.WriteString(end)
	return insertion{at: at, text: b.String()}, nil
}

// addElements is the insertion that appends values to the array at v.
func addElements(doc []byte, v jsonValue, values []any) (insertion, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(doc[v.start:v.end], &elems); err != nil {
		return insertion{}, err
	}
	var parts []string
	for _, x := range values {
		b, err := compact(x)
		if err != nil {
			return insertion{}, err
		}
		parts = append(parts, b)
	}
	b := strings.Join(parts, ", ")
	if len(elems) == 0 {
		return insertion{at: v.start + 1, text: b}, nil
	}
	// After the last element: find its end by decoding up to it.
	dec := json.NewDecoder(bytes.NewReader(doc[v.start:v.end]))
	dec.Token()
	for range elems {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return insertion{}, err
		}
	}
	at := v.start + int(dec.InputOffset())
	sep := ", "
	if bytes.Contains(doc[v.start:at], []byte("\n")) {
		sep = ",\n" + lineIndent(doc, at-1)
	}
	return insertion{at: at, text: sep + b}, nil
}

// lineIndent is the white space that starts the line holding offset at.
func lineIndent(doc []byte, at int) string {
	start := bytes.LastIndexByte(doc[:at], '\n') + 1
	end := start
	for end < len(doc) && (doc[end] == ' ' || doc[end] == '\t') {
		end++
	}
	return string(doc[start:end])
}

func compact(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func indented(v any, indent string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// loadDoc reads a JSON object file for editing: a missing or blank file is
// an empty object. A file that is not a JSON object is an error: init
// never overwrites what it cannot read.
func loadDoc(path string) (doc []byte, root jsonValue, existed bool, err error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b = []byte("{}\n")
	case err != nil:
		return nil, jsonValue{}, false, err
	default:
		existed = true
	}
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("{}\n")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, jsonValue{}, existed, fmt.Errorf("%s is not a JSON object (%v); fix it or move it aside", path, err)
	}
	return b, docRoot(b), existed, nil
}

// docRoot is where the value of a document starts and ends, without the
// white space around it.
func docRoot(doc []byte) jsonValue {
	return jsonValue{len(doc) - len(bytes.TrimLeft(doc, " \t\r\n")), len(bytes.TrimRight(doc, " \t\r\n"))}
}

// objectAt lists the members of the object value m holds; a value of
// another kind is an error naming where.
func objectAt(doc []byte, m jsonMember, file, where string) ([]jsonMember, error) {
	if doc[m.val.start] != '{' {
		return nil, fmt.Errorf("%s: %s is not an object", file, where)
	}
	return objectMembers(doc, m.val)
}
