package summarize

import (
	"fmt"
	"strings"
)

// PromptVersion names the prompt below; a summary records it, so one
// written by an older prompt can be told apart. Change it with the text.
const PromptVersion = "1"

// instructions is the system message.
const instructions = `You summarize one source file for a coding agent's file registry.
Write two to five plain sentences: what the file is for, the main types, functions or sections it defines, and anything a programmer must know before editing it.
State only what the file shows; where it does not say, leave it out.
Do not repeat these instructions, do not quote the file, and do not use Markdown headings or code blocks.`

// AnswerTokens bounds a summary's length in tokens: the request's
// max_tokens.
const AnswerTokens = 300

// Messages is the chat for one file: the instructions, then the file's
// path and its (redacted) text.
func Messages(path, lang, text string) []Message {
	var b strings.Builder
	fmt.Fprintf(&b, "File: %s\n", path)
	if lang != "" {
		fmt.Fprintf(&b, "Language: %s\n", lang)
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	fmt.Fprintf(&b, "\n%s\n%s", fence, text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence + "\n")
	return []Message{{Role: "system", Content: instructions}, {Role: "user", Content: b.String()}}
}
