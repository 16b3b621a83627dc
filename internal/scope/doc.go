// Package scope chooses a record's input scope: the set of files its command read, as globs
// relative to the workspace root: "**" matches any number of folders,
// other segments match as path.Match does. It is chosen from the command:
//
//   - go test/build/vet/install: the module files, go.mod and go.sum,
//     and the files, testdata and embedded folders of the named packages
//     and of every package of the module they import (go.go); the
//     whole module where that cannot be told;
//   - cargo: the crate (the folder of the nearest Cargo.toml);
//   - pytest, jest, vitest, tsc, mocha, npm/pnpm/yarn test, python -m
//     unittest: the project (the folder of the nearest package.json,
//     pyproject.toml, setup.py, setup.cfg or tsconfig.json);
//   - anything else: the whole work tree.
//
// `--inputs GLOB` replaces it. A file of the scope changed since the
// record when its mtime or ctime is after the record started; a folder of
// it whose entries changed counts too (a file added or removed). A symlink
// changed when it or its target did; one whose target the walk does not
// reach (outside the root, missing, a folder outside the scope) leaves the
// answer incomplete.
package scope
