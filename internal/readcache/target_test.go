package readcache

import "testing"

func TestSensitive(t *testing.T) {
	for _, p := range []string{".env", "app/.env.local", "certs/server.pem", "tls/site.key", ".netrc", ".npmrc",
		"home/.ssh/id_ed25519", ".ssh/config", "secrets/store.p12"} {
		if sensitive(p) == "" {
			t.Errorf("%s served", p)
		}
	}
	for _, p := range []string{"main.go", "env.go", "docs/keys.md", "src/environment.ts", "README.md"} {
		if why := sensitive(p); why != "" {
			t.Errorf("%s refused (%s)", p, why)
		}
	}
}
