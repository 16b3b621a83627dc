package summarize

import (
	"strings"
	"testing"
)

const fileText = `package config

// Config is the settings a user can change.
type Config struct {
	Retention time.Duration
	MaxFileSize int64
}

// Load reads the settings from the store, with their defaults.
func Load(s *Store) (*Config, error) {
	return load(s, defaults)
}
`

func TestJudge(t *testing.T) {
	tests := []struct {
		name, answer, finish string
		want                 string // "" the answer is taken
	}{
		{name: "a summary", answer: goodText},
		{name: "reasoning dropped", answer: "<think>The user wants a summary.</think>\n" + goodText},
		{name: "empty", answer: "  \n ", want: "empty"},
		{name: "only reasoning", answer: "<think>hmm</think>", want: "empty"},
		{name: "cut off", answer: goodText, finish: "length", want: "cut off"},
		{name: "control characters", answer: "Loads \x1b[31mconfig\x1b[0m and more words here.", want: "not text"},
		{name: "invalid UTF-8", answer: "Loads the config \xff\xfe of the store.", want: "not text"},
		{name: "symbols", answer: "{{{ }}} ;;; ((( ))) ### @@@ $$$ %%% ^^^ &&& ***", want: "not prose"},
		{name: "a word over and over", answer: strings.Repeat("config config config load ", 10), want: "over and over"},
		{name: "longer than the file", answer: strings.Repeat("Loads the settings and checks them. ", 30), want: "far longer"},
		{name: "longer than any summary", answer: strings.Repeat("Loads the settings, then checks each. ", 100), want: "more than a summary"},
		{name: "repeats the instructions", answer: "Write two to five plain sentences: what the file is for. It loads config.", want: "repeats the prompt"},
		{name: "repeats the header", answer: "File: config/config.go\nLanguage: go", want: "repeats the prompt"},
		{name: "quotes the file", answer: "type Config struct {\n\tRetention time.Duration\n\tMaxFileSize int64\nfunc Load(s *Store) (*Config, error) {", want: "quotes the file"},
		{name: "names one line of the file", answer: "Defines `func Load(s *Store) (*Config, error) {` which reads settings with defaults."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := Judge(Answer{Text: tt.answer, Finish: tt.finish}, "config/config.go", fileText)
			switch {
			case tt.want == "" && why != "":
				t.Fatalf("refused (%s), want taken", why)
			case tt.want != "" && !strings.Contains(why, tt.want):
				t.Fatalf("refused for %q, want a reason with %q (summary %q)", why, tt.want, got)
			case tt.want != "" && got != "":
				t.Fatalf("refused and still a summary %q", got)
			case tt.want == "" && (got == "" || strings.Contains(got, "<think>")):
				t.Fatalf("summary %q", got)
			}
		})
	}
}
