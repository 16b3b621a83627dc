package redact

import (
	"strings"
	"testing"
)

func redactLines(text string) (string, int) {
	var r Redactor
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if red := r.Line([]byte(l)); red != nil {
			out = append(out, string(red))
		}
	}
	return strings.Join(out, "\n"), r.Count()
}

// TestLayoutSecretsAreRedacted: a .netrc whose tokens stand on lines of
// their own and a PuTTY key's private lines lose their secrets, and what
// says what they are stays.
func TestLayoutSecretsAreRedacted(t *testing.T) {
	for _, c := range []struct {
		name, text string
		secrets    []string
		kept       []string
	}{
		{"netrc over lines", "machine api.example.com\n  login deploy\n  password Qz7mN4pLx9\nmachine other.example.org login bob\npassword hunter2xyz\n\taccount Acct77qq",
			[]string{"Qz7mN4pLx9", "hunter2xyz", "Acct77qq"}, []string{"machine api.example.com", "login deploy", "login bob"}},
		{"netrc default entry", "default login anon password Wq8Lz2Pp", []string{"Wq8Lz2Pp"}, []string{"default login anon password"}},
		{"putty v3", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20240101\nPublic-Lines: 2\n" +
			"AAAAC3NzaC1lZDI1NTE5AAAAIHq8c3ZkYmF6cXdlcnR5dWlvcGFzZGZnaGprbA\nAAAAC3NzaC1lZDI1NTE5AAAAIHq8c3ZkYm\n" +
			"Private-Lines: 2\nAAAAIFq3cGw4b3Jkc2VjcmV0a2V5bWF0ZXJpYWxoZXJlMTIzNDU2Nzg5MA==\nZmluYWxrZXlsaW5lc2VjcmV0\nPrivate-MAC: 8a3f0c9d",
			[]string{"AAAAIFq3cGw4b3Jkc2VjcmV0a2V5bWF0ZXJpYWxoZXJlMTIzNDU2Nzg5MA==", "ZmluYWxrZXlsaW5lc2VjcmV0"},
			[]string{"PuTTY-User-Key-File-3: ssh-ed25519", "AAAAC3NzaC1lZDI1NTE5AAAAIHq8c3ZkYm", "Private-Lines: 2 " + Mark, "Private-MAC: 8a3f0c9d"}},
		{"putty v2 with CRLF", "PuTTY-User-Key-File-2: ssh-rsa\r\nPrivate-Lines: 1\r\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\r\nPrivate-MAC: 00ff\r",
			[]string{"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="}, []string{"Private-MAC: 00ff"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, n := redactLines(c.text)
			for _, s := range c.secrets {
				if strings.Contains(out, s) {
					t.Errorf("%q kept:\n%s", s, out)
				}
			}
			for _, k := range c.kept {
				if !strings.Contains(out, k) {
					t.Errorf("%q lost:\n%s", k, out)
				}
			}
			if n == 0 {
				t.Error("nothing counted")
			}
		})
	}
}

// TestLayoutLeavesProseAlone: the words of those formats in ordinary
// output change nothing, and a PuTTY count cannot swallow the lines after
// its key.
func TestLayoutLeavesProseAlone(t *testing.T) {
	for _, text := range []string{
		"password reset for user bob\naccount locked after 3 tries",
		"machine learning models\npassword reset done",
		"default settings applied\npassword changed by admin yesterday",
		"Private-Lines: many\nnext line",
		"see src/netrc.go:12: machine not found",
	} {
		if out, n := redactLines(text); out != text || n != 0 {
			t.Errorf("%q became %q", text, out)
		}
	}
	out, _ := redactLines("Private-Lines: 99999\nQUJD\nPrivate-MAC: 00\nok: build passed\nsrc/a.go:1: fine")
	if !strings.Contains(out, "ok: build passed") || !strings.Contains(out, "src/a.go:1: fine") {
		t.Fatalf("a PuTTY count swallowed later lines:\n%s", out)
	}
}
