package redact

import (
	"strings"
	"testing"
)

func redactAll(text string) (string, int) {
	var r Redactor
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if got := r.Line([]byte(l)); got != nil {
			out = append(out, string(got))
		}
	}
	return strings.Join(out, "\n"), r.Count()
}

func TestRedactsEachKind(t *testing.T) {
	tests := []struct {
		name, in, secret string
	}{
		{"aws access key", "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
		{"aws secret assignment", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"},
		{"github token", "cloning with ghp_abcdefghijklmnopqrstuvwxyz0123456789AB", "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"},
		{"github fine-grained", "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABCDEFG"},
		{"gitlab token", "using glpat-xxxxxxxxxxxxxxxxxxxx1234 for push", "glpat-xxxxxxxxxxxxxxxxxxxx1234"},
		{"slack token", "hook xoxb-123456789012-abcdefghijkl", "xoxb-123456789012-abcdefghijkl"},
		{"google api key", "key AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"},
		{"stripe key", "STRIPE sk_live_abcdefghijklmnopqrstuvwx", "sk_live_abcdefghijklmnopqrstuvwx"},
		{"api key", "OPENAI sk-proj-abcdefghijklmnopqrstuvwxyz123456", "sk-proj-abcdefghijklmnopqrstuvwxyz123456"},
		{"jwt", "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJhbGciOiJIUzI1NiJ9"},
		{"bearer header", "> Authorization: Bearer abc.def-ghi_jkl.mnop123456", "abc.def-ghi_jkl.mnop123456"},
		{"basic header", "authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="},
		{"curl bearer", `curl -H "Bearer 0123456789abcdef0123456789abcdef"`, "0123456789abcdef0123456789abcdef"},
		{"url credentials", "fetching https://deploy:s3cr3tpass@git.example.com/repo.git", "s3cr3tpass"},
		{"password assignment", "DB_PASSWORD=hunter2 ./server", "hunter2"},
		{"password yaml", `  password: "correct horse battery"`, "correct horse battery"},
		{"token flag", "--token=abcd1234efgh", "abcd1234efgh"},
		{"api_key json", `{"api_key": "k-99887766"}`, "k-99887766"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := redactAll(tt.in)
			if strings.Contains(got, tt.secret) {
				t.Fatalf("secret survived: %q", got)
			}
			if n < 1 || !strings.Contains(got, Mark) {
				t.Fatalf("count = %d, out = %q", n, got)
			}
		})
	}
}

func TestRedactsPrivateKeyBlock(t *testing.T) {
	in := "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACDx\n-----END OPENSSH PRIVATE KEY-----\nafter"
	got, n := redactAll(in)
	if strings.Contains(got, "b3BlbnNzaC1rZXktdjEAAAAA") || strings.Contains(got, "QyNTUxOQAAACDx") {
		t.Fatalf("key material survived:\n%s", got)
	}
	if n != 1 || !strings.Contains(got, "before") || !strings.Contains(got, "after") || !strings.Contains(got, "-----END OPENSSH PRIVATE KEY-----") {
		t.Fatalf("n = %d:\n%s", n, got)
	}
	one, n := redactAll(`key = "-----BEGIN RSA PRIVATE KEY-----MIIEow-----END RSA PRIVATE KEY-----"`)
	if strings.Contains(one, "MIIEow") || n < 1 {
		t.Fatalf("inline key: %q (%d)", one, n)
	}
}

func TestLeavesOrdinaryOutputAlone(t *testing.T) {
	for _, line := range []string{
		"--- FAIL: TestTokenizer (0.00s)",
		"    auth_test.go:12: want 3, got 4",
		`if token == "" {`,
		"password: ${DB_PASSWORD}",
		"ok  \tgithub.com/acme/keys\t0.012s",
		"https://example.com/path",
		"monkey business",
	} {
		got, n := redactAll(line)
		if got != line || n != 0 {
			t.Errorf("%q changed to %q (%d)", line, got, n)
		}
	}
}

func FuzzLine(f *testing.F) {
	f.Add("password=x token: y -----BEGIN PRIVATE KEY-----")
	f.Fuzz(func(t *testing.T, s string) {
		var r Redactor
		r.Line([]byte(s))
		r.Line([]byte(s))
	})
}
