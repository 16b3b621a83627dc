package redact

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benignLines hold the words secrets are named by, but no secret: file
// references, settings and messages that earlier rules mangled.
var benignLines = []string{
	"auth/token.go:12:5: undefined: refresh",
	"internal/secret/password_test.go:40: want 1, got 2",
	"src/api_key.ts(3,7): error TS2304: Cannot find name 'x'.",
	"  File \"app/credentials.py\", line 88, in load_credentials",
	"--> src/token_store.rs:14:9",
	"/home/dev/app/config/secrets.yaml:3:1: mapping values are not allowed here",
	"./scripts/rotate_keys.sh: line 12: jq: command not found",
	"webpack compiled with 1 warning: ./src/auth/password-reset.tsx",
	"at Object.<anonymous> (/srv/app/lib/apiKey.js:27:15)",
	"max_tokens: 4096",
	"TOKEN_TTL=3600",
	"password: must be at least 8",
	"SyntaxError: Unexpected token: punc (1:12)",
	"SyntaxError: Unexpected token '}'",
	"--- FAIL: TestTokenRefresh (0.01s)",
	"=== RUN   TestSecretRotation/expired_key",
	"ok  \tgithub.com/acme/credentials\t0.120s",
	"keyboard: us",
	"primary_key: id",
	"monkey: true",
	"bypass: cache",
	"api_version: v2",
	"secret_name: db-creds",
	"Authorization: required",
	"token_count: 1200",
	"  \"tokens\": 12,",
	"password_min_length=12",
	"key_id: 7",
	"--password-stdin",
	"docker login --password-stdin registry.example.com",
	" ✓ src/auth/token.test.ts > refreshes the token (3 ms)",
	" × src/auth/session.test.ts > rejects a bad password 4ms",
	"   → expected 'secret' to deeply equal 'Secret'",
	"PASS src/auth/credentials.test.js",
	"error[E0425]: cannot find value `api_key` in this scope",
	"warning: unused variable: `token`",
	"DB_PASSWORD=$DB_PASSWORD",
	"API_KEY=${API_KEY}",
	"token: <your token here>",
	"export GITHUB_TOKEN=***",
	// minified JavaScript (three.js, Babel)
	"Ag.prototype.authorization=function(e){this.length=e};",
	`const s=new Request(t,{headers:new Headers(this.requestHeader),credentials:this.withCredentials?"include":"same-origin"})`,
	`!(STEP_KEY = ITERATOR_HELPER()).done;) BODY;`,
	"SECRET_KEY_BASE=",
	"url: https://example.com/api/v1/tokens",
	"GET /api/password/reset 200 14ms",
	"connecting to postgres://db.internal:5432/app",
	"Cloning into 'credentials-manager'...",
	"npm WARN deprecated keygrip@1.0.3",
	"  const token = await getToken(user);",
	"  password = request.form['password']",
	"  if (apiKey === undefined) throw new Error('no key');",
	"session_key = cfg.session.signing_key",
	"AccountKey=",
}

func TestBenignLinesUnchanged(t *testing.T) {
	for _, l := range benignLines {
		var r Redactor
		if got := string(r.Line([]byte(l))); got != l {
			t.Errorf("changed (%v):\n in: %s\nout: %s", r.Kinds(), l, got)
		}
	}
}

// TestRealOutputsUnchanged runs the compressor corpus (real tool output)
// and a real `go test -v` log through the redactor: nothing in them is a
// secret, so nothing may change.
func TestRealOutputsUnchanged(t *testing.T) {
	files, _ := filepath.Glob("../compress/testdata/corpus/*.out")
	files = append(files, "testdata/go-test-v.log")
	if len(files) < 10 {
		t.Fatalf("found %d corpus files", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r Redactor
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if got := r.Line(sc.Bytes()); !bytes.Equal(got, sc.Bytes()) {
				t.Errorf("%s:%d changed (%v):\n in: %s\nout: %s", filepath.Base(f), n, r.Kinds(), sc.Text(), got)
			}
		}
	}
}

// TestFileReferencesNeverRedacted puts a real secret on the same line as
// file references named like secrets: the secret goes, the references stay.
func TestFileReferencesNeverRedacted(t *testing.T) {
	refs := []string{"auth/token.go:12:5", "secrets/password.yaml", "config/api_key.json:3", "./deploy/keys/id_token.pem"}
	secret := "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"
	for _, ref := range refs {
		for _, line := range []string{
			ref + ": token " + secret,
			"password=" + ref,
			"TOKEN=" + ref + " " + secret,
			"--token " + ref,
		} {
			var r Redactor
			got := string(r.Line([]byte(line)))
			if !strings.Contains(got, ref) {
				t.Errorf("reference %s lost:\n in: %s\nout: %s", ref, line, got)
			}
			if strings.Contains(got, secret) {
				t.Errorf("secret survived: %s", got)
			}
		}
	}
}

func TestStringRedactsLabelsAndArguments(t *testing.T) {
	for _, in := range []string{
		"deploy with --token=s3cr3tT0k3nValue99",
		"curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://x",
		"PGPASSWORD=Hunter22 psql",
	} {
		got, n := String(in)
		if n == 0 || !strings.Contains(got, Mark) {
			t.Errorf("String(%q) = %q, %d", in, got, n)
		}
	}
}
