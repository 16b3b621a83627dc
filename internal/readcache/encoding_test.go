package readcache

import (
	"strings"
	"testing"
)

// TestLatin1IsReadWithANotice: a file in a single-byte encoding is served
// decoded, saying so; its re-read and its edit are answered as any text's.
func TestLatin1IsReadWithANotice(t *testing.T) {
	f := newFixture(t)
	var body strings.Builder
	for i := range 30 {
		body.WriteString("caf\xe9 au lait, line ")
		body.WriteByte(byte('a' + i%26))
		body.WriteString(" \xbfqu\xe9?\n")
	}
	f.r.Write("menu.txt", body.String())
	res := f.expect("s", "menu.txt", ModeFull)
	if !strings.HasPrefix(res.Text, "[menu.txt is not UTF-8; shown decoded as Latin-1 (ISO-8859-1)]\n") {
		t.Fatalf("no notice: %q", res.Text[:80])
	}
	if !strings.Contains(res.Text, "café au lait, line a ¿qué?") {
		t.Fatalf("not decoded: %q", res.Text[:200])
	}
	if !strings.Contains(res.Reason, "not UTF-8") {
		t.Errorf("reason = %q", res.Reason)
	}
	f.expect("s", "menu.txt", ModeUnchanged)
	f.r.Write("menu.txt", strings.Replace(body.String(), "line c", "line C \xe0 la carte", 1))
	res = f.expect("s", "menu.txt", ModeDiff)
	if !strings.Contains(res.Text, "line C à la carte") {
		t.Fatalf("diff not decoded: %q", res.Text)
	}
	// Control bytes are binary, as before.
	f.r.Write("blob.dat", strings.Repeat("\x01\x02\x03\xff", 100))
	if res := f.expect("s", "blob.dat", ModeFull); !strings.Contains(res.Text, "not UTF-8 text file") {
		t.Fatalf("binary-ish file served: %q", res.Text)
	}
}
