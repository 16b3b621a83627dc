// Package doctor examines a store and its surroundings and repairs what is
// safe to repair: `freshctx doctor [--fix]`.
//
// Checks, in order: the database's integrity and foreign keys, its schema
// version, the blob area against the blob rows (orphan files, temporary
// files of writers that died, files older versions set aside), rows whose
// blob file is gone (records whose raw output was lost), the permissions of
// the store's files, and git. Each check is ok, warn (nothing is wrong with
// what is kept, but something deserves a look) or fail.
//
// --fix removes orphan and abandoned files, puts back set-aside files a row
// still needs, drops cache rows (artifacts, read-cache versions, registry
// drift bases) whose content is gone so they are rebuilt, deletes blob rows
// nothing references, and tightens permissions. It never deletes a record:
// a record whose raw output is gone keeps its digest and is named so the
// user can forget it.
package doctor
