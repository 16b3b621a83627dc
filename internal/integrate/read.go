package integrate

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/freshctx/freshctx/internal/readcache"
)

// claudeReadOutput is Claude Code's Read tool output for text (its
// FileReadOutput); a PostToolUse hook's replacement must have this shape.
type claudeReadOutput struct {
	Type string `json:"type"`
	File struct {
		FilePath            string `json:"filePath"`
		Content             string `json:"content"`
		NumLines            int    `json:"numLines"`
		StartLine           int    `json:"startLine"`
		TotalLines          int    `json:"totalLines"`
		TruncatedByTokenCap bool   `json:"truncatedByTokenCap,omitempty"`
	} `json:"file"`
}

// claudeRead answers PostToolUse for Claude Code's Read. The Read has run
// (so Claude Code's own state of the file, which Edit needs, is right); the
// read cache records what it delivered, in Claude Code's own form
// (claudeForm), in the context's session and, when the model already holds
// those lines or a diff is cheaper as Claude Code sends it, replaces the
// output with that answer. What Read delivered must be the file's text now,
// with the range and line count Read told the model; else — the file
// changed between the two reads, Read cut it (truncatedByTokenCap), the
// hook could not read it — the model holds content nobody can vouch for,
// and the file's picture is erased: the next read serves content.
func claudeRead(ctx context.Context, h *HookInput, rc *readcache.Service) (string, error) {
	var out claudeReadOutput
	if err := json.Unmarshal(h.ToolResponse, &out); err != nil || out.File.FilePath == "" {
		// An image, a notebook, a PDF: not text the read cache keeps, but
		// the model now holds something of the file.
		return "", forgetInput(ctx, h, rc)
	}
	session := ClaudeCodeAgent.ReadSession(h)
	if out.Type != "text" || out.File.TruncatedByTokenCap || out.File.NumLines <= 0 {
		return "", forgetUnmatched(rc, ctx, session, out.File.FilePath)
	}
	seen := out.File.Content
	req := readcache.ReadRequest{Session: session, Target: out.File.FilePath, Seen: &seen,
		SeenTotal: out.File.TotalLines, Form: claudeForm{}}
	if out.File.StartLine > 1 || out.File.NumLines < out.File.TotalLines {
		req.Offset, req.Limit = max(out.File.StartLine, 1), out.File.NumLines
	}
	res, err := rc.Read(ctx, req)
	if err != nil {
		// The file changed meanwhile, or Read altered or cut it, or it is
		// not the read cache's to keep (sensitive, too large): Read's answer
		// stands, and what the model held of the file is no longer known.
		if ferr := forgetUnmatched(rc, ctx, session, out.File.FilePath); ferr != nil {
			return "", errors.Join(err, ferr)
		}
		return "", nil
	}
	var reply string
	switch res.Mode {
	case readcache.ModeUnchanged, readcache.ModeUnchangedRange, readcache.ModeDiff:
		out.File.Content = res.Text
		out.File.NumLines = strings.Count(res.Text, "\n") + 1
		reply, err = answerJSON(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PostToolUse", "updatedToolOutput": out,
		}})
		if err != nil {
			return "", err
		}
	}
	// Read's own content, or the replacement, reaches the model: trust it.
	if err := rc.Delivered(ctx, res); err != nil {
		return "", err
	}
	return reply, nil
}

// forgetUnmatched erases the picture of a file whose delivery could not be
// matched to its bytes. A variable so that the model-based test can prove
// it catches keeping the picture instead (TestHookModelCatchesAKeptPicture).
var forgetUnmatched = (*readcache.Service).Forget

// forgetInput erases the picture of the file a tool call names, in the
// context's session.
func forgetInput(ctx context.Context, h *HookInput, rc *readcache.Service) error {
	return onInputPath(h, func(session, path string) error { return rc.Forget(ctx, session, path) })
}

// editedInput marks the picture of the file a tool call names edited (the
// model changed it), in the context's session.
func editedInput(ctx context.Context, h *HookInput, rc *readcache.Service) error {
	return onInputPath(h, func(session, path string) error { return rc.Edited(ctx, session, path) })
}

// onInputPath calls do with the context's session and the file a tool
// call names (file_path, or notebook_path), if it names one.
func onInputPath(h *HookInput, do func(session, path string) error) error {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(h.ToolInput, &in) != nil {
		return nil
	}
	path := in.FilePath
	if path == "" {
		path = in.NotebookPath
	}
	if path == "" || h.SessionID == "" {
		return nil
	}
	return do(ClaudeCodeAgent.ReadSession(h), path)
}

// claudeForm is the text Claude Code's Read delivers for a file, as
// observed of version 2.1.330: a leading byte-order mark is dropped, each
// "\r\n" becomes "\n" (a lone "\r" stays), bytes that are not UTF-8 become
// U+FFFD; the lines are the text split at "\n" (so a file ending in a
// newline has an empty last line), and the model gets each as "N\tline".
// Where this guess is wrong the delivered text does not match and nothing
// is recorded: content is served again, never a wrong note.
type claudeForm struct{}

func (claudeForm) Text(b []byte) string {
	s := strings.TrimPrefix(string(b), "\ufeff")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !utf8.ValidString(s) {
		var sb strings.Builder
		for _, r := range s { // an invalid byte is one U+FFFD
			sb.WriteRune(r)
		}
		s = sb.String()
	}
	return s
}

func (claudeForm) TotalLines(text string) int { return strings.Count(text, "\n") + 1 }

func (claudeForm) Sent(text string, start int) string {
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(start + i))
		b.WriteByte('\t')
		b.WriteString(line)
	}
	return b.String()
}

func (claudeForm) Numbered() bool { return true }
