package team

import (
	"context"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"
)

func artifact(content string) Artifact {
	a := Artifact{RepoID: "repo-1", Type: "repo_map", Key: "root", Commit: "abc", Tree: "t1", Author: "ana", Machine: "laptop",
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
		Slices: []ArtifactSlice{{Name: "", PathSet: "ps", Content: content,
			Inputs: []File{{Path: "a.go", SHA256: strings.Repeat("a", 64), Existed: true}}}}}
	a.Seal()
	return a
}

// TestArtifactsAreStoredOnceAndIntact: publishing an artifact again
// stores nothing new; its contents come back as sealed, any byte in
// NUL-bearing or invalid UTF-8 content included; a changed input hash or
// content breaks the seal and the signature.
func TestArtifactsAreStoredOnceAndIntact(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	a := artifact("map\x00with a NUL and \xff invalid UTF-8")
	for i := range 2 {
		n, err := s.PublishArtifacts(ctx, []Artifact{a})
		if err != nil || n != 1-i {
			t.Fatalf("publish %d: %d new, %v", i+1, n, err)
		}
	}
	found, err := s.FindArtifacts(ctx, "repo-1", "repo_map", "root")
	if err != nil || len(found) != 1 || found[0].ID != a.ID || !found[0].Sealed() {
		t.Fatalf("found %+v, %v", found, err)
	}
	if ok, err := s.Contents(ctx, &found[0]); !ok || err != nil || found[0].Slices[0].Content != a.Slices[0].Content {
		t.Fatalf("contents: %v %v %q", ok, err, found[0].Slices[0].Content)
	}
	if other, _ := s.FindArtifacts(ctx, "repo-2", "repo_map", "root"); len(other) != 0 {
		t.Fatalf("another repository sees %d artifacts", len(other))
	}

	pub, priv, _ := ed25519.GenerateKey(nil)
	a.Sign(priv)
	if !a.Signed(pub) {
		t.Fatal("a signed artifact does not verify")
	}
	lie := a
	lie.Slices = []ArtifactSlice{a.Slices[0]}
	lie.Slices[0].Inputs = []File{{Path: "a.go", SHA256: strings.Repeat("b", 64), Existed: true}}
	if lie.Sealed() || lie.Signed(pub) {
		t.Fatal("an artifact whose input hash changed after sealing still verifies")
	}
	swapped := a
	swapped.Slices = []ArtifactSlice{a.Slices[0]}
	swapped.Slices[0].Content = "other content"
	if swapped.Intact() {
		t.Fatal("an artifact whose content changed after sealing is intact")
	}
}
