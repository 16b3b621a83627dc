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

# Go
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

# JavaScript and TypeScript (tools from the npm registry, see projects/js)
gen tsc              js "npx tsc -p ."
gen eslint           js "npx eslint src"
gen jest             js "npx jest --ci"
gen vitest           js "npx vitest run"
gen node-test        js "node --test nodetest/"

# Python (pytest from the distribution's packages)
export PATH=/usr/bin:$PATH
gen pytest           python "python3 -m pytest -v -p no:cacheprovider tests/test_cart.py"
gen pytest-short     python "python3 -m pytest -q -p no:cacheprovider tests/test_cart.py"
gen unittest         python "python3 -m unittest -v tests.test_unit"

# Java (javac; maven offline against the distribution's maven-repo packages)
gen javac            java/javac  "javac Invoice.java Order.java"
gen maven-test       java/shop   "mvn -B -o -Dmaven.repo.local=/usr/share/maven-repo test"
gen maven-compile    java/broken "mvn -B -o -Dmaven.repo.local=/usr/share/maven-repo compile"

# C (make driving gcc; clang directly)
gen make             c "make -k CC=gcc"
gen gcc              c "gcc -Wall -Wextra -c util.c main.c"
gen clang            c "clang -Wall -Wextra -c util.c main.c"
