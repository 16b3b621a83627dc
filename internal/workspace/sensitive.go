package workspace

import (
	"bytes"
	"path"
	"strings"
)

// Sensitive says why a root-relative path names a file that holds secrets
// (environment files, keys, credentials, cloud and cluster configs,
// Terraform state), or "" when it does not. Names are compared without
// case. Callers check the path as asked and the path a symlink resolves to.
func Sensitive(rel string) string {
	lower := strings.ToLower(rel)
	base := path.Base(lower)
	for _, r := range sensitiveRules {
		if r.match(lower, base) {
			return r.why
		}
	}
	return ""
}

type sensitiveRule struct {
	why   string
	match func(rel, base string) bool
}

var sensitiveRules = []sensitiveRule{
	{"an environment file", envFile},
	{"a private key", func(_, base string) bool {
		for _, k := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"} {
			if strings.HasPrefix(base, k) && !strings.HasSuffix(base, ".pub") {
				return true
			}
		}
		return false
	}},
	{"a credentials file", func(rel, base string) bool {
		return credentialNames[base] || hasDir(rel, ".docker") && base == "config.json" ||
			hasDir(rel, ".aws") || hasDir(rel, ".azure") || hasDir(rel, ".config/gcloud") ||
			strings.Contains(base, "service-account") && strings.HasSuffix(base, ".json")
	}},
	{"a cluster config", func(rel, base string) bool {
		return strings.HasPrefix(base, "kubeconfig") || hasDir(rel, ".kube") && base == "config"
	}},
	{"Terraform state or variables", func(_, base string) bool {
		return strings.HasSuffix(base, ".tfstate") || strings.HasSuffix(base, ".tfstate.backup") ||
			strings.HasSuffix(base, ".tfvars") || strings.HasSuffix(base, ".tfvars.json")
	}},
	{"a key or certificate", func(_, base string) bool { return keyExts[path.Ext(base)] }},
	{"an ssh or gpg file", func(rel, _ string) bool { return hasDir(rel, ".ssh") || hasDir(rel, ".gnupg") }},
}

var credentialNames = map[string]bool{
	".netrc": true, "_netrc": true, ".npmrc": true, ".pypirc": true, ".pgpass": true, ".git-credentials": true,
	"credentials": true, "credentials.json": true, ".htpasswd": true, ".vault-token": true, ".boto": true,
	".s3cfg": true, ".dockercfg": true, "secrets.yml": true, "secrets.yaml": true, "secrets.json": true,
}

var keyExts = map[string]bool{
	".pem": true, ".key": true, ".p12": true, ".pfx": true, ".crt": true, ".cer": true, ".der": true,
	".jks": true, ".keystore": true, ".kdbx": true, ".asc": true, ".gpg": true, ".p8": true, ".ppk": true,
}

// envTemplates are environment files meant to be committed: no values.
var envTemplates = map[string]bool{"example": true, "sample": true, "template": true, "dist": true, "defaults": true}

// envFile: .env, .env.local, .envrc, .env_backup, .ENV, env.local — but not
// env.go or environment.ts, nor .env.example.
func envFile(_, base string) bool {
	rest, dotted := strings.CutPrefix(base, ".env")
	if !dotted {
		var ok bool
		rest, ok = strings.CutPrefix(base, "env.")
		if !ok {
			return false
		}
		return envStages[rest]
	}
	suffix := strings.TrimLeft(rest, "._-")
	return !envTemplates[suffix]
}

// envStages are the suffixes of an undotted env file ("env.local").
var envStages = map[string]bool{
	"local": true, "dev": true, "development": true, "prod": true, "production": true, "staging": true,
	"test": true, "backup": true, "bak": true, "old": true, "save": true, "secret": true, "secrets": true,
}

func hasDir(rel, dir string) bool {
	return strings.HasPrefix(rel, dir+"/") || strings.Contains(rel, "/"+dir+"/")
}

// SensitiveContent says why file content holds a secret whatever the file
// is called: a private key block or a cloud service-account key.
func SensitiveContent(b []byte) string {
	head := b[:min(len(b), 1<<20)]
	switch {
	case bytes.Contains(head, []byte(`"private_key"`)) && bytes.Contains(head, []byte(`"service_account"`)):
		return "a service-account key"
	case bytes.Contains(head, []byte("-----BEGIN")) && bytes.Contains(head, []byte("PRIVATE KEY-----")):
		return "a private key"
	}
	return ""
}

// SensitiveFile says why a file holds secrets, judging the path as asked
// (rel), the path it resolves to (abs, from Resolve: a link named
// config.txt that points at .env is an environment file) and, when given,
// its content.
func (w *Workspace) SensitiveFile(rel, abs string, content []byte) string {
	if why := Sensitive(rel); why != "" {
		return why
	}
	if target, ok := within(w.Root, abs); ok && target != rel {
		if why := Sensitive(target); why != "" {
			return why + " (through a link to " + target + ")"
		}
	}
	if content != nil {
		return SensitiveContent(content)
	}
	return ""
}
