package readcache

import (
	"os"
	"testing"
	"time"
)

// The picture of what the model holds must be exact: these made a whole
// read answer "unchanged" for a file whose latest view differed.

func TestSoundGrowReadTailShrinkBack(t *testing.T) {
	f := newFixture(t)
	v30 := lines(30, "first")
	f.r.Write("a.txt", v30)
	f.expect("s", "a.txt", ModeFull)
	f.r.Write("a.txt", v30+lines(10, "tail"))
	f.expect("s", "a.txt:31-40", ModeFull)
	f.r.Write("a.txt", v30) // back to 30 lines: the model's latest view has 40
	if res := f.read("s", "a.txt"); res.Mode == ModeUnchanged {
		t.Fatalf("whole read answered unchanged, though the model was shown lines 31-40 (%s)", res.Reason)
	}
}

func TestSoundEmptyAnswerIsPartOfThePicture(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", "hello\n")
	f.expect("s", "a.txt", ModeFull)
	f.r.Write("a.txt", "")
	if res := f.read("s", "a.txt"); res.Text != "" || res.Mode == ModeUnchanged {
		t.Fatalf("the emptied file answered %s %q, want its (empty) content", res.Mode, res.Text)
	}
	f.r.Write("a.txt", "hello\n")
	if res := f.read("s", "a.txt"); res.Mode == ModeUnchanged {
		t.Fatalf("after the model saw the file empty, %q answered unchanged (%s)", "hello", res.Reason)
	}
}

func TestSoundNoticeErasesThePicture(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", "hello\n")
	f.expect("s", "a.txt", ModeFull)
	f.r.Write("a.txt", "bin\x00ary\n")
	f.read("s", "a.txt") // a notice: the content is not shown
	f.r.Write("a.txt", "hello\n")
	if res := f.read("s", "a.txt"); res.Mode == ModeUnchanged {
		t.Fatalf("after a notice, answered unchanged (%s)", res.Reason)
	}
}

func TestSoundSameStatDifferentBytes(t *testing.T) {
	f := newFixture(t)
	f.r.Write("a.txt", "aaaa\n")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(f.r.Path("a.txt"), old, old)
	f.expect("s", "a.txt", ModeFull)
	f.r.Write("a.txt", "bbbb\n") // same size, mtime put back: only the bytes tell
	os.Chtimes(f.r.Path("a.txt"), old, old)
	if res := f.read("s", "a.txt"); res.Mode == ModeUnchanged {
		t.Fatalf("answered unchanged for new bytes with the old size and mtime")
	}
}
