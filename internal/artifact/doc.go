// Package artifact is freshctx's cache of derived artifacts (seed 001): repo
// maps, file summaries, dependency graphs, tool results… each stored with
// everything it depended on and checked against all of it when asked for.
//
// An artifact is identified by (repo id, ref, type, key) and made of slices
// (one unnamed slice unless --slice is used), each with its own inputs. A
// lookup evaluates, in the seed's order, repo and ref → commit and tree →
// file digests → agent version → config, policy and entitlement digests,
// then TTL and forced invalidation, and answers hit, stale (naming every
// failing dimension, with the previous content so it can seed incremental
// regeneration) or cold.
//
// Modes: default (a new commit or tree only makes an artifact a candidate:
// its file digests decide, and a clean file under an identical tree is not
// even read), strict (any change of a tracked dimension, commit included, is
// stale) and relaxed (only the primary inputs count: file digests, the path
// set of a repo map, the commit of a change summary).
//
// A repo map depends on the work tree's path set. A get knows it without
// listing the tree while a path set proof holds (proof.go): freshctx's
// own fingerprints of every folder git does not ignore as a whole and of
// every input of git's listing, each settled before the tree was last
// listed, all still equal.
//
// An artifact of one repository never answers for another. An artifact put
// on another ref answers when its tree is the current tree (except in
// strict mode). Every lookup and put is counted for hit rates and
// regeneration latency. A Service is used by one goroutine.
package artifact
