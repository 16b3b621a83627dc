package redact

import (
	"strings"
	"testing"
)

// TestNewSecretShapesAreRedacted: shapes a hundred realistic kinds outside
// the corpus leaked through, each stored unredacted in the digest, the raw
// output and the database. Each secret here must be gone from its line,
// and the rest of the line kept.
func TestNewSecretShapesAreRedacted(t *testing.T) {
	pw := "Tr0ub4dor&3x"
	aws := "/" + strings.Repeat("kQ3v", 9) + "xY9" // 40 bytes, begins with "/"
	for _, c := range []struct{ line, secret string }{
		{"AWS_SECRET_ACCESS_KEY=" + aws, aws},
		{"aws_secret_access_key = " + aws, aws},
		{`{"SecretAccessKey": "` + aws + `"}`, aws},
		{"POST /hooks/slack/xoxb-2431234567-1234567890123-QwErTyUiOpAsDfGhJkLzXcVb HTTP/1.1", "xoxb-2431234567-1234567890123-QwErTyUiOpAsDfGhJkLzXcVb"},
		{"password=Winter.Time2031", "Winter.Time2031"},
		{"password=Winter.Time:2031", "Winter.Time:2031"},
		{"+ mysql -h db -uapp -p" + pw + " shop", pw},
		{"sshpass -p " + pw + " ssh deploy@host", pw},
		{"docker login -u ci -p " + pw + " registry.example.com", pw},
		{"redis-cli -h cache -a " + pw + " ping", pw},
		{"openssl pkcs12 -in a.p12 -passin pass:" + pw, pw},
		{"127.0.0.1:6379> AUTH " + pw, pw},
		{"requirepass " + pw, pw},
		{"db.internal:5432:shop:app:" + pw, pw},
		{"    client-key-data: LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSUxu", "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSUxu"},
		{"ya29.A0ARrdaM8qZkP1fW2xY3vB4nC5mD6lE7kF8jG9hH0iI1jJ2", "ya29.A0ARrdaM8qZkP1fW2xY3vB4nC5mD6lE7kF8jG9hH0iI1jJ2"},
		{"GET https://api.telegram.org/bot7123456789:AAGx2kP9qR4sT6uV8wX0yZ1aB3cD5eF7gH9/getUpdates", "7123456789:AAGx2kP9qR4sT6uV8wX0yZ1aB3cD5eF7gH9"},
		{"SQUARE=sq0csp-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876", "sq0csp-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876"},
		{"token sk.eyJ1IjoiYWNtZSIsImEiOiJjbDl4eXoxMjMifQ.Qw3rTy5uIo7pAs9dFg", "sk.eyJ1IjoiYWNtZSIsImEiOiJjbDl4eXoxMjMifQ.Qw3rTy5uIo7pAs9dFg"},
		{"ATBB9xK2mP4qR6sT8uV0wX2yZ4aB6cD8eF0gH2jK4", "ATBB9xK2mP4qR6sT8uV0wX2yZ4aB6cD8eF0gH2jK4"},
		{"Authorization: SSWS 00Qx7Yb-Kp2Lm9Nz4Rt6Vw8Yc0Ae2Gi4", "00Qx7Yb-Kp2Lm9Nz4Rt6Vw8Yc0Ae2Gi4"},
		{"authorization: Hawk id=dh37fgj492je, mac=6R4rV5iE+NPoym+WwjeHzjAGXUtLNIxmo1vpMofpLAE=", "id=dh37fgj492je"},
	} {
		out, n := String(c.line)
		if n == 0 || strings.Contains(out, c.secret) {
			t.Errorf("%q: redacted as %q", c.line, out)
		}
	}
}

// TestNewRulesLeaveBenignLines: the lines those rules must not touch.
func TestNewRulesLeaveBenignLines(t *testing.T) {
	for _, line := range []string{
		"mysql -u root -p shop", // asks for the password
		"mysql: [Warning] Using a password on the command line interface can be insecure.",
		"redis-cli -h cache ping",
		"docker login registry.example.com",
		"auth failed for user deploy",
		"AUTH",
		"Authorization header missing",
		"calc.go:12:5: undefined: Add",
		"internal/auth/token.go:40:2: declared and not used",
		"/hooks/slack/handler.go:12",
		"sshpass -f ~/.pw ssh host",
		"ok  	example.com/bot	0.012s",
		"the robot said hi",
	} {
		if out, n := String(line); n != 0 || out != line {
			t.Errorf("%q redacted as %q", line, out)
		}
	}
}

// TestColouredNamesAreSeenThrough: grep --color puts escapes inside the
// name (DB_PASSWORD) and the value went through; the escapes are looked
// through, the secret redacted, the colours of the line kept.
func TestColouredNamesAreSeenThrough(t *testing.T) {
	line := "config/.env:3:\x1b[01;31m\x1b[KDB_PASSWORD\x1b[m\x1b[K=Tr0ub4dor&3x"
	out, n := String(line)
	if n == 0 || strings.Contains(out, "Tr0ub4dor") || !strings.Contains(out, "\x1b[01;31m\x1b[KDB_PASSWORD\x1b[m\x1b[K=") {
		t.Fatalf("redacted as %q", out)
	}
	for _, benign := range []string{"\x1b[32mok\x1b[0m  \texample.com/calc\t0.012s", "\x1b]0;title\x07plain text", "\x1b[1mPASS\x1b[0m TestAdd"} {
		if out, n := String(benign); n != 0 || out != benign {
			t.Errorf("%q redacted as %q", benign, out)
		}
	}
}
