package readcache

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// lineRange is a requested scope: start 0 means the whole file; end 0 means
// to the end.
type lineRange struct{ start, end int }

var rangeSuffix = regexp.MustCompile(`^(.*):(\d+)(?:-(\d*))?$`)

// parseTarget splits "PATH[:N-M]" (1-based, inclusive; ":N" to the end)
// and makes the path root-relative.
func (s *Service) parseTarget(spec string) (string, lineRange, error) {
	p, r := spec, lineRange{}
	if m := rangeSuffix.FindStringSubmatch(spec); m != nil {
		p = m[1]
		r.start, _ = strconv.Atoi(m[2])
		if m[3] != "" {
			r.end, _ = strconv.Atoi(m[3])
		}
		if r.start < 1 || (r.end != 0 && r.end < r.start) {
			return "", r, fmt.Errorf("%s: want PATH:N-M with 1 ≤ N ≤ M", spec)
		}
	}
	rel, err := s.WS.Rel(p, s.Cwd)
	if err != nil {
		return "", r, err
	}
	return rel, r, nil
}

var sensitiveNames = map[string]bool{
	".netrc": true, "_netrc": true, ".npmrc": true, ".pypirc": true, ".pgpass": true, ".git-credentials": true,
	"credentials": true, "id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, ".htpasswd": true,
}

var sensitiveExts = map[string]bool{
	".pem": true, ".key": true, ".p12": true, ".pfx": true, ".crt": true, ".cer": true, ".der": true,
	".jks": true, ".keystore": true, ".kdbx": true, ".asc": true, ".gpg": true,
}

// sensitive says why a path is not served without --allow-sensitive.
func sensitive(rel string) string {
	base := path.Base(rel)
	switch {
	case base == ".env" || strings.HasPrefix(base, ".env."):
		return "an environment file"
	case sensitiveNames[base]:
		return "a credentials file"
	case sensitiveExts[strings.ToLower(path.Ext(base))]:
		return "a key or certificate"
	case strings.Contains("/"+rel, "/.ssh/"):
		return "an ssh file"
	}
	return ""
}
