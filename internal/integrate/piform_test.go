package integrate

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"testing"
)

// TestPiFormDecodesAsNode: the bytes a pi read delivers are decoded as
// Node decodes them; checked against Node itself where it is installed,
// on fixed tricky inputs and 3,000 random ones.
func TestPiFormDecodesAsNode(t *testing.T) {
	fixed := map[string]string{
		"\xef\xbb\xbfa\r\nb":     "\ufeffa\r\nb",
		"\xe9b":                  "\ufffdb",
		"\xe2\x82c":              "\ufffdc",
		"\xf0\x9f\x98":           "\ufffd",
		"\xed\xa0\x80":           "\ufffd\ufffd\ufffd", // a surrogate: each byte
		"\xc0\xaf":               "\ufffd\ufffd",
		"ok \xf4\x90\x80\x80 ok": "ok \ufffd\ufffd\ufffd\ufffd ok",
	}
	for in, want := range fixed {
		if got := (piForm{}).Text([]byte(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the fixed cases only")
	}
	r := rand.New(rand.NewPCG(44, 73))
	var inputs []string
	for range 3000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = []byte{0x61, 0x0a, 0x0d, 0x80, 0x9f, 0xa0, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff}[r.IntN(16)]
		}
		inputs = append(inputs, hex.EncodeToString(b))
	}
	var want []string
	mapInNode(t, node, "", `h=>Buffer.from(h,"hex").toString("utf-8")`, inputs, &want)
	for i, h := range inputs {
		b, _ := hex.DecodeString(h)
		if got := (piForm{}).Text(b); got != want[i] {
			t.Fatalf("%x: %q, Node %q", b, got, want[i])
		}
	}
}

// mapInNode has Node map each element of in through the function f (with
// the definitions before it) and decodes the results into out.
func mapInNode(t *testing.T, node, before, f string, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "-e", before+`let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{
		console.log(JSON.stringify(JSON.parse(d).map(`+f+`)))})`)
	cmd.Stdin = bytes.NewReader(b)
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	if err := json.Unmarshal(got, out); err != nil {
		t.Fatal(err)
	}
}
