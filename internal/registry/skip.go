package registry

import (
	"bytes"
	"path"
	"strings"

	"github.com/freshctx/freshctx/internal/rx"
)

// Reasons a file is left out of the registry.
const (
	SkipBinary    = "binary"
	SkipLockfile  = "lockfile"
	SkipVendor    = "vendor"
	SkipGenerated = "generated"
	SkipTooLarge  = "too_large"
	// SkipOutsideRoot is a link to a file outside the workspace root,
	// which freshctx never reads.
	SkipOutsideRoot = "outside_root"
)

var lockfiles = map[string]bool{
	"go.sum": true, "go.work.sum": true, "package-lock.json": true, "npm-shrinkwrap.json": true,
	"yarn.lock": true, "pnpm-lock.yaml": true, "bun.lockb": true, "bun.lock": true, "Cargo.lock": true,
	"poetry.lock": true, "Pipfile.lock": true, "uv.lock": true, "pdm.lock": true, "composer.lock": true,
	"Gemfile.lock": true, "mix.lock": true, "pubspec.lock": true, "Podfile.lock": true, "flake.lock": true,
	"packages.lock.json": true, "gradle.lockfile": true, "Package.resolved": true, "deno.lock": true,
}

// vendorDirs are folders of third-party or generated files.
var vendorDirs = map[string]bool{
	"vendor": true, "node_modules": true, "third_party": true, "bower_components": true, "Pods": true,
	"__pycache__": true, ".venv": true, "venv": true, ".tox": true, "dist": true, ".next": true,
	".nuxt": true, "target": true, ".gradle": true, ".dart_tool": true, "generated": true,
}

// skipByName says whether a path is skipped whatever its content.
func skipByName(p string) string {
	base := path.Base(p)
	if lockfiles[base] {
		return SkipLockfile
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if vendorDirs[dir] {
			return SkipVendor
		}
	}
	if strings.HasSuffix(base, ".min.js") || strings.HasSuffix(base, ".min.css") ||
		strings.HasSuffix(base, ".pb.go") || strings.HasSuffix(base, "_pb2.py") {
		return SkipGenerated
	}
	return ""
}

// generatedMarker is the conventional first-lines notice of generated code
// (Go's "Code generated … DO NOT EDIT.", and the same words elsewhere).
var generatedMarker = rx.MustCompile(`(?m)^\W{0,4}(Code generated .* DO NOT EDIT\.|@generated\b|This file was automatically generated|AUTO-GENERATED FILE)`)

// sniff classifies a file by its first bytes: NUL means binary.
func sniff(head []byte) string {
	if bytes.IndexByte(head, 0) >= 0 {
		return SkipBinary
	}
	if generatedMarker.Match(head[:min(len(head), 2048)]) {
		return SkipGenerated
	}
	return ""
}

var languages = map[string]string{
	".go": "go", ".rs": "rust", ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
	".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript",
	".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".c": "c", ".h": "c", ".cc": "cpp",
	".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".cs": "csharp", ".rb": "ruby", ".php": "php",
	".swift": "swift", ".m": "objc", ".lua": "lua", ".sh": "shell", ".bash": "shell", ".zsh": "shell",
	".sql": "sql", ".html": "html", ".css": "css", ".scss": "css", ".vue": "vue", ".svelte": "svelte",
	".md": "markdown", ".rst": "text", ".txt": "text", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
	".toml": "toml", ".xml": "xml", ".proto": "protobuf", ".tf": "terraform", ".ex": "elixir", ".exs": "elixir",
	".erl": "erlang", ".hs": "haskell", ".ml": "ocaml", ".clj": "clojure", ".dart": "dart", ".zig": "zig",
}

var namedLanguages = map[string]string{
	"Makefile": "make", "GNUmakefile": "make", "Dockerfile": "docker", "Containerfile": "docker",
	"go.mod": "go.mod", "CMakeLists.txt": "cmake", "Justfile": "just", "Rakefile": "ruby", "Gemfile": "ruby",
}

// language names a file's language or type from its name.
func language(p string) string {
	base := path.Base(p)
	if l, ok := namedLanguages[base]; ok {
		return l
	}
	if l, ok := languages[strings.ToLower(path.Ext(base))]; ok {
		return l
	}
	if strings.HasPrefix(base, ".") {
		return "config"
	}
	return "other"
}
