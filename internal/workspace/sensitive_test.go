package workspace

import "testing"

func TestSensitive(t *testing.T) {
	for _, p := range []string{
		".env", "app/.env.local", ".envrc", ".env_backup", "env.local", ".ENV", "config/env.production",
		"ID_RSA", "id_rsa.bak", "home/.ssh/id_ed25519", ".ssh/config", ".gnupg/pubring.kbx",
		".docker/config.json", "terraform.tfstate", "infra/prod.tfstate.backup", "prod.tfvars", ".vault-token",
		"kubeconfig", "kubeconfig.yaml", ".kube/config", "gcp-service-account.json", ".aws/credentials",
		"certs/server.pem", "tls/site.key", ".netrc", ".npmrc", "secrets/store.p12", "credentials.json",
	} {
		if Sensitive(p) == "" {
			t.Errorf("%s not sensitive", p)
		}
	}
	for _, p := range []string{
		"main.go", "env.go", "internal/env/env.go", "docs/keys.md", "src/environment.ts", "README.md",
		".env.example", "app/.env.sample", "config.json", "kube/deploy.yaml", "id_rsa.pub", "terraform/main.tf",
		"auth/token.go", "tokens_test.go",
	} {
		if why := Sensitive(p); why != "" {
			t.Errorf("%s refused (%s)", p, why)
		}
	}
}

func TestSensitiveContent(t *testing.T) {
	for _, c := range []string{
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n",
		`{"type": "service_account", "project_id": "p", "private_key": "-----BEGIN PRIVATE KEY-----\nMII\n"}`,
	} {
		if SensitiveContent([]byte(c)) == "" {
			t.Errorf("%.30q not sensitive", c)
		}
	}
	for _, c := range []string{"package main\n", "-----BEGIN CERTIFICATE-----\n", `{"type": "service_account"}`} {
		if why := SensitiveContent([]byte(c)); why != "" {
			t.Errorf("%.30q refused (%s)", c, why)
		}
	}
}
