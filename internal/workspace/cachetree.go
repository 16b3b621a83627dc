package workspace

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"runtime/debug"
	"strconv"
	"strings"
)

// Nothing staged, by git's own record. Git keeps in its index a cache of
// the trees the index's entries make (the TREE extension): every change to
// an entry invalidates the cached trees above it, and a commit, a checkout
// or a reset fills them in again. When the cached tree of the workspace's
// folder is valid and is HEAD's tree of that folder, the index holds
// exactly what HEAD holds there, and `git diff-index --cached` would list
// nothing. At 100,000 files that git reads the whole index and HEAD's
// whole tree (70 ms, 3,400 page faults); the index's own record costs one
// `git rev-parse` and a pass over the index's bytes.
//
// Only a plain index is taken at its word: versions 2 to 4, no extension
// git must understand to read it (a split index's entries are elsewhere,
// "link"; a sparse one lists folders, "sdir"), no entry unmerged or added
// with intent to add (which no tree holds, so a valid cache says nothing
// of them). Anything else, or anything unexpected in the bytes, and git
// is asked.

// errIndexUnread marks an index whose cache tree says nothing: git is asked.
var errIndexUnread = errors.New("the index's cache tree does not answer")

// indexIsHead reports whether the index holds exactly HEAD's tree in the
// workspace's folder, by the cached tree the index keeps; false when that
// is not known (git is then asked).
func (g *Git) indexIsHead(ctx context.Context) bool {
	if g.indexPath() == "" {
		return false
	}
	out, err := g.Run(ctx, g.Top, "rev-parse", "--verify", "-q", "HEAD:"+g.prefix)
	if err != nil {
		return false
	}
	tree := objectID(string(bytes.TrimSpace(out)))
	return tree != nil && g.indexHolds(tree)
}

// indexHolds reports whether the index's valid cached tree of the
// workspace's folder is tree; false when that is not known.
func (g *Git) indexHolds(tree []byte) bool {
	index := g.indexPath()
	if index == "" {
		return false
	}
	data, release, err := mapFile(index)
	if err != nil {
		return false
	}
	defer release()
	return mappedTreeIs(data, tree, g.prefix)
}

// mappedTreeIs reports whether the valid cached tree of prefix in the
// mapped index data is the tree head. A mapped file cut shorter while it
// is read (git replaces its index whole, another tool might not) faults
// rather than failing a read: that fault is taken as no answer.
func mappedTreeIs(data, head []byte, prefix string) (is bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			is = false
		}
	}()
	cached, err := cachedTree(data, len(head), prefix)
	return err == nil && bytes.Equal(cached, head)
}

// cachedTree returns the object id of the valid cached tree of the folder
// prefix ("" the top) in the index data, whose object ids are hashLen
// bytes; errIndexUnread when the index is not one to take at its word.
func cachedTree(data []byte, hashLen int, prefix string) ([]byte, error) {
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return nil, errIndexUnread
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, errIndexUnread
	}
	end := len(data) - hashLen // the checksum of the rest
	off, err := skipEntries(data[:end], version, hashLen)
	if err != nil {
		return nil, err
	}
	var tree []byte
	for off < end {
		if end-off < 8 {
			return nil, errIndexUnread
		}
		sig, size := string(data[off:off+4]), int(binary.BigEndian.Uint32(data[off+4:off+8]))
		if size < 0 || size > end-off-8 {
			return nil, errIndexUnread
		}
		switch {
		case sig == "TREE":
			tree = data[off+8 : off+8+size]
		case sig[0] < 'A' || sig[0] > 'Z':
			// One git must understand to read the index ("link" of a
			// split index, "sdir" of a sparse one, or one newer than
			// this code): what it changes is not known here.
			return nil, errIndexUnread
		}
		off += 8 + size
	}
	if tree == nil {
		return nil, errIndexUnread
	}
	return findCachedTree(tree, hashLen, prefix)
}

// Index entry layout: ten 32-bit stat fields (the mode the seventh), the
// object id, then 16 bits of flags: extended, the stage, the name's length.
const (
	entryStat      = 40
	flagExtended   = 0x4000
	flagStage      = 0x3000
	flagNameLength = 0x0fff
	extIntentToAdd = 0x2000
	modeTypeMask   = 0o170000
	modeFolder     = 0o040000
)

// skipEntries walks past the index's entries, checking each is a plain
// one, and returns the offset of the first extension.
func skipEntries(data []byte, version uint32, hashLen int) (int, error) {
	n := int(binary.BigEndian.Uint32(data[8:12]))
	off := 12
	for range n {
		p := off + entryStat + hashLen
		if p+2 > len(data) {
			return 0, errIndexUnread
		}
		mode := binary.BigEndian.Uint32(data[off+24 : off+28])
		flags := binary.BigEndian.Uint16(data[p : p+2])
		p += 2
		if flags&flagStage != 0 || mode&modeTypeMask == modeFolder {
			return 0, errIndexUnread // unmerged, or a sparse index's folder
		}
		if flags&flagExtended != 0 {
			if version < 3 || p+2 > len(data) || binary.BigEndian.Uint16(data[p:p+2])&extIntentToAdd != 0 {
				return 0, errIndexUnread
			}
			p += 2
		}
		next, err := entryEnd(data, off, p, version, int(flags&flagNameLength))
		if err != nil {
			return 0, err
		}
		off = next
	}
	return off, nil
}

// entryEnd is the offset past the entry at off whose name starts at p.
// Version 4 gives the name as a count of bytes to drop from the one before
// and a NUL-terminated suffix; versions 2 and 3 give it whole, its length
// in the flags (0xfff when longer), NUL-padded to a multiple of eight
// bytes.
func entryEnd(data []byte, off, p int, version uint32, nameLen int) (int, error) {
	if version == 4 {
		for { // git's offset varint: seven bits a byte, high bit to go on
			if p >= len(data) {
				return 0, errIndexUnread
			}
			c := data[p]
			p++
			if c&0x80 == 0 {
				break
			}
		}
		nul := bytes.IndexByte(data[p:], 0)
		if nul < 0 {
			return 0, errIndexUnread
		}
		return p + nul + 1, nil
	}
	if nameLen == flagNameLength {
		nul := bytes.IndexByte(data[p:], 0)
		if nul < 0 {
			return 0, errIndexUnread
		}
		nameLen = nul
	}
	if p+nameLen >= len(data) || data[p+nameLen] != 0 {
		return 0, errIndexUnread
	}
	size := (p - off + nameLen + 8) &^ 7
	if off+size > len(data) {
		return 0, errIndexUnread
	}
	return off + size, nil
}

// findCachedTree finds the folder prefix in the TREE extension's data and
// returns its object id if its cached tree is valid. The extension lists
// the top first, then each folder's subfolders after it, depth first: a
// folder's name, NUL, the count of entries it covers (-1 when invalid),
// a space, its count of subfolders, a newline, and the object id when
// valid.
func findCachedTree(data []byte, hashLen int, prefix string) ([]byte, error) {
	n, err := readTreeNode(data, 0, hashLen)
	if err != nil || n.name != "" {
		return nil, errIndexUnread
	}
	rest := prefix
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		found := false
		pos := n.children
		for range n.subtrees {
			c, err := readTreeNode(data, pos, hashLen)
			if err != nil {
				return nil, err
			}
			if c.name == name {
				n, found = c, true
				break
			}
			if pos, err = skipTreeNode(data, c, hashLen, 0); err != nil {
				return nil, err
			}
		}
		if !found {
			return nil, errIndexUnread
		}
	}
	if n.oid == nil {
		return nil, errIndexUnread
	}
	return n.oid, nil
}

// treeNode is one folder of the TREE extension.
type treeNode struct {
	name     string
	subtrees int
	oid      []byte // nil when the cached tree is invalid
	children int    // the offset of its first subfolder
}

// readTreeNode reads the folder at pos.
func readTreeNode(data []byte, pos, hashLen int) (treeNode, error) {
	nul := bytes.IndexByte(data[pos:], 0)
	if nul < 0 {
		return treeNode{}, errIndexUnread
	}
	n := treeNode{name: string(data[pos : pos+nul])}
	pos += nul + 1
	nl := bytes.IndexByte(data[pos:], '\n')
	if nl < 0 {
		return treeNode{}, errIndexUnread
	}
	countStr, subStr, ok := bytes.Cut(data[pos:pos+nl], []byte{' '})
	if !ok {
		return treeNode{}, errIndexUnread
	}
	count, err1 := strconv.Atoi(string(countStr))
	subtrees, err2 := strconv.Atoi(string(subStr))
	if err1 != nil || err2 != nil || count < -1 || subtrees < 0 {
		return treeNode{}, errIndexUnread
	}
	n.subtrees = subtrees
	pos += nl + 1
	if count >= 0 {
		if pos+hashLen > len(data) {
			return treeNode{}, errIndexUnread
		}
		n.oid = data[pos : pos+hashLen]
		pos += hashLen
	}
	n.children = pos
	return n, nil
}

// maxTreeDepth bounds the folders skipTreeNode descends: deeper than any
// path a system takes.
const maxTreeDepth = 4096

// skipTreeNode returns the offset past n and all its subfolders, n being
// depth folders down.
func skipTreeNode(data []byte, n treeNode, hashLen, depth int) (int, error) {
	if depth > maxTreeDepth {
		return 0, errIndexUnread
	}
	pos := n.children
	for range n.subtrees {
		c, err := readTreeNode(data, pos, hashLen)
		if err != nil {
			return 0, err
		}
		if pos, err = skipTreeNode(data, c, hashLen, depth+1); err != nil {
			return 0, err
		}
	}
	return pos, nil
}
