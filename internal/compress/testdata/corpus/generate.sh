#!/usr/bin/env bash
# Regenerates the compressor corpus by really running each tool on the small
# projects under ../projects. Each entry is NAME.cmd (the command line and the
# workspace root it ran in) and NAME.out (stdout and stderr as the terminal
# would interleave them); the facts that must survive compression,
# NAME.facts, are written by hand (see corpus_test.go for their format).
#
# Projects are copied to a scratch directory first; its path is replaced by
# /home/dev/PROJECT in the output so entries do not depend on where they were
# made. Usage: generate.sh [REGEXP]   (entries whose name starts with it; default all)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
projects=$(cd "$here/../projects" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
only=${1:-}

gen() { # gen NAME PROJECT CMD...
  local name=$1 project=$2; shift 2
  [[ -n $only && ! $name =~ ^($only) ]] && return
  local dir=$scratch/$project
  if [[ ! -d $dir ]]; then
    mkdir -p "$(dirname "$dir")" && cp -r "$projects/$project" "$dir"
    [[ -x $dir/setup.sh ]] && (cd "$dir" && ./setup.sh >/dev/null 2>&1)
  fi
  printf '%s\n# root /home/dev/%s\n' "$*" "$project" > "$here/$name.cmd"
  (cd "$dir" && NO_COLOR=1 TERM=dumb timeout 600 bash -c "$*" 2>&1) |
    grep -v "^npm warn Unknown user config" | sed -e "s#$dir#/home/dev/$project#g" -e "s#$scratch#/home/dev#g" -e "s#$HOME#/home/dev#g" > "$here/$name.out"
  echo "$name: $(wc -l < "$here/$name.out") lines"
}

# Go: a real module (github.com/spf13/cobra, from the Go module proxy) with
# the faults an agent meets mid-task: a changed error message that a test
# pins (args_test.go:95), and a type error. Its TestFailGenFishCompletionFile
# panics when run as root (it expects a read-only file to be unwritable).
cobra() { # cobra NAME PATCH CMD...: a fresh copy of cobra with PATCH applied
  local name=$1 patch=$2; shift 2
  [[ -n $only && ! $name =~ ^($only) ]] && return
  local src dir=$scratch/cobra-$name
  src=$(cd "$scratch" && GOFLAGS=-mod=mod go mod download -json github.com/spf13/cobra@v1.10.2 | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  rm -rf "$dir" && cp -r "$src" "$dir" && chmod -R u+w "$dir"
  (cd "$dir" && eval "$patch" && go mod download)
  rm -rf "$scratch/cobra" && mv "$dir" "$scratch/cobra" && gen "$name" cobra "$@"
}
msg='s/accepts %d arg(s), received %d/accepts %d args, received %d/'
cobra cobra-test       "sed -i '$msg' args.go" "go test ./..."
cobra cobra-test-v     "sed -i '$msg' args.go" "go test -v ."
cobra cobra-test-json  "sed -i '$msg' args.go" "go test -json ."
cobra cobra-errors     "sed -i '$msg' args.go" "go test -run 'Args|Fish' -v ."
cobra cobra-build      "sed -i 's/return c.commandgroups/return c.commandGroups, nil/' command.go" "go build ./..."
cobra cobra-vet        "printf '\\nfunc debugArgs(args []string) { fmt.Printf(\"%d args\\\\n\", args) }\\n' >> cobra.go" "go vet ./..."
cobra cobra-download   ":" "GOMODCACHE=\$PWD/.modcache GOFLAGS=-modcacherw go build ./... && rm -rf .modcache"

# Go: the corpus's own small packages
gen go-test-fail     go "go test ./calc/ ./ok/ ./panicky/"
gen go-test-v        go "go test -v ./calc/"
gen go-test-json     go "go test -json ./calc/"
gen go-test-pass     go "go test -v ./ok/"
gen go-test-race     go "go test -race ./race/"
gen go-test-panic    go "go test ./panicky/"
gen go-build         go "go build ./broken/"
gen go-vet           go "go vet ./vetme/"

# Rust (no dependencies: runs offline)
export CARGO_TERM_COLOR=never
gen rust-test        rust/calc   "cargo test --offline"
gen rust-build       rust/broken "cargo build --offline"
gen rust-clippy      rust/lint   "cargo clippy --offline"
gen rustc            rust/single "rustc --edition 2021 parse.rs"
gen rustc-warning    rust/warn   "rustc --edition 2021 build.rs"
gen cargo-workspace  rust/ws     "cargo build --offline"
gen cargo-test-ws    rust/ws     "cargo test --offline -p util"

# JavaScript and TypeScript (tools from the npm registry, see projects/js)
gen tsc              js "npx tsc -p ."
gen eslint           js "npx eslint src"
gen jest             js "npx jest --ci"
gen vitest           js "npx vitest run vitest/stack.test.mjs"
gen vitest-nested    js "npx vitest run vitest/queue"
gen node-test        js "node --test nodetest/"

# Python (pytest from the distribution's packages)
export PATH=/usr/bin:$PATH
gen pytest           python "python3 -m pytest -v -p no:cacheprovider tests/test_cart.py"
gen pytest-short     python "python3 -m pytest -q -p no:cacheprovider tests/test_cart.py"
gen pytest-param     python/pricing "python3 -m pytest -p no:cacheprovider tests"
gen pytest-param-v   python/pricing "python3 -m pytest -v -p no:cacheprovider tests"
gen py-keyerror      python/scratch "python3 scratch.py api worker"
gen py-deep        python/scratch "python3 deep.py"
gen py-json          python/scratch "python3 -c \"import json; json.loads('{bad')\""
gen py-config        python/scratch "python3 config.py"
gen unittest         python "python3 -m unittest -v tests.test_unit"

# Package managers: real installs from the registries, warnings kept
gen npm-install      js/deps "npm install --no-audit --no-fund"
gen npm-install-404  js/deps "npm install freshctx-corpus-no-such-package"
gen pnpm-install     js/deps "rm -rf node_modules package-lock.json && npx -y pnpm@9.15.9 install"
gen yarn-install     js/deps "rm -rf node_modules pnpm-lock.yaml && npx -y yarn@1.22.22 install"
gen pip-install      python/pkg "env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null python3 -m pip install --no-index --no-build-isolation --target .site ."
gen pip-install-missing python/pkg "env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null python3 -m pip install --no-index --target .site nosuchpkg-freshctx"
gen pip-system       python/pkg "env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null python3 -m pip install --no-index nosuchpkg-freshctx"

# Java (javac; maven offline against the distribution's maven-repo packages)
gen javac            java/javac  "javac Invoice.java Order.java"
gen maven-test       java/shop   "mvn -B -o -Dmaven.repo.local=/usr/share/maven-repo test"
gen maven-compile    java/broken "mvn -B -o -Dmaven.repo.local=/usr/share/maven-repo compile"

# C (make driving gcc; clang directly)
gen make             c "make -k CC=gcc"
gen gcc              c "gcc -Wall -Wextra -c util.c main.c"
gen clang            c "clang -Wall -Wextra -c util.c main.c"

# Generic: a script's own progress, then its failure
gen generic-ok       c "for i in \$(seq 300); do echo \"ok step \$i\"; done; echo 'error: step 301: no space left on device' >&2; exit 1"
gen git-merge        generic "cd merge && git merge feature"
