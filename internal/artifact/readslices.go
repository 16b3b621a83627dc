package artifact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadSlices reads the slices of a batch put: JSON objects {"slice",
// "deps", "content"}, one per line (blank lines skipped) or as one array.
// Unknown fields are an error, so a misspelt "dep" is not silently a slice
// with no deps.
func ReadSlices(r io.Reader) ([]SliceInput, error) {
	br := bufio.NewReader(r)
	first, err := firstByte(br)
	if err != nil {
		return nil, err
	}
	if first == '[' {
		dec := json.NewDecoder(br)
		dec.DisallowUnknownFields()
		var out []SliceInput
		if err := dec.Decode(&out); err != nil {
			return nil, fmt.Errorf("the array of slices: %w", err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, errors.New("the array of slices: something follows it")
		}
		return nonEmpty(out)
	}
	var out []SliceInput
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var s SliceInput
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("line %d: more than one object (one slice per line)", n)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("after line %d: %w", n, err)
	}
	return nonEmpty(out)
}

func nonEmpty(s []SliceInput) ([]SliceInput, error) {
	if len(s) == 0 {
		return nil, errNoSlices
	}
	return s, nil
}

var errNoSlices = errors.New("no slices given")

// firstByte peeks at the first byte that is not white space.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return 0, errNoSlices
		}
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, br.UnreadByte()
		}
	}
}
