package records

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// chunks is a reader that hands out its data in the sizes given, then the
// rest in one read, as a command's pipe may.
type chunks struct {
	data  []byte
	sizes []int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.sizes) > 0 {
		n, c.sizes = min(n, c.sizes[0]), c.sizes[1:]
	}
	n = copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// TestSecretAcrossAPieceIsRedacted: a line too long to wait for is
// redacted in pieces, and a secret whose keyword ends one piece and whose
// value starts the next — or which straddles the cut itself — is redacted
// all the same, in the stored output and in the digest.
func TestSecretAcrossAPieceIsRedacted(t *testing.T) {
	const boundary = maxPending
	spaced := strings.Repeat("lorem ipsum ", boundary/12+1)
	solid := strings.Repeat("segment/", boundary/8+1)
	for _, c := range []struct {
		name, filler, head, tail, secret string
	}{
		{"keyword then value", spaced, "db password: ", " and more", "Summer.Fun2024x"},
		{"json key then value", spaced, `{"aws_secret_access_key": "`, `", "x": 1}`, "/k9Qv2Lw8ZpX4rT7mN1bY6cH3sJ0aE5dF8gU2iOp"},
		{"env name then value", spaced, "STRIPE_API_TOKEN=", " next", "Rk8vQ2mW9xT4pL7nB3cZ6yH1sD5fG0jA"},
		{"a token cut in its middle", solid, "/AKIAZ4Q7LX", "/more/path", "M2PRT5WQ3N"},
		{"a key header cut in its middle", spaced, `"-----BEGIN RSA `, `\n-----END RSA PRIVATE KEY-----" done`, `PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretmaterial`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newService(t)
			head := c.filler[:boundary-len(c.head)] + c.head
			in := []byte(head + c.secret + c.tail + c.filler[:5000] + "\npkg/calc.go:3: after\n")
			rec, err := s.Capture(context.Background(), CaptureRequest{Input: &chunks{data: in, sizes: []int{len(head)}}})
			if err != nil {
				t.Fatal(err)
			}
			stored := raw(t, s, rec.ID, Stdout)
			whole := c.secret
			if c.name == "a token cut in its middle" {
				whole = c.head[1:] + c.secret
			}
			for _, part := range []string{whole, c.secret, whole[:len(whole)/2+1]} {
				if bytes.Contains(stored, []byte(part)) || strings.Contains(rec.Digest, part) {
					t.Fatalf("%q was stored:\n%s", part, storedAround(stored, boundary))
				}
			}
			if !bytes.Contains(stored, []byte("pkg/calc.go:3: after")) || rec.Redactions == 0 {
				t.Fatalf("redactions = %d, or the next line was lost", rec.Redactions)
			}
		})
	}
}

func storedAround(b []byte, at int) []byte {
	return b[max(0, at-200):min(len(b), at+200)]
}
