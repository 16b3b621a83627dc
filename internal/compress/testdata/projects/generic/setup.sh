#!/bin/sh
# A repository whose two branches changed the same lines: merging them conflicts.
set -e
git init -q -b main merge && cd merge
git config user.email dev@example.com && git config user.name dev
printf 'port = 8080\nhost = "localhost"\nworkers = 4\n' > config.toml
printf 'package main\n\nfunc main() {}\n' > main.go
git add . && git commit -qm base
git checkout -qb feature
printf 'port = 9090\nhost = "localhost"\nworkers = 8\n' > config.toml
printf 'package main\n\nfunc main() { run() }\n' > main.go
git commit -qam "feature: new port"
git checkout -q main
printf 'port = 8081\nhost = "0.0.0.0"\nworkers = 4\n' > config.toml
printf 'package main\n\nfunc main() { serve() }\n' > main.go
git commit -qam "main: bind all"
