package integrate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

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
// read cache records what it delivered in the conversation's session and,
// when the model already holds those lines or a diff is cheaper, replaces
// the output with that answer. The lines Read delivered must be the file's
// lines as the read cache reads them, else nothing is recorded or replaced:
// the file changed between the two reads, or Read altered the text.
func claudeRead(ctx context.Context, h *HookInput, rc *readcache.Service) (string, error) {
	var out claudeReadOutput
	if err := json.Unmarshal(h.ToolResponse, &out); err != nil || out.Type != "text" || out.File.FilePath == "" {
		return "", nil // an image, a notebook, a PDF: not ours
	}
	if out.File.TruncatedByTokenCap {
		return "", nil
	}
	seen := out.File.Content
	req := readcache.ReadRequest{Session: ClaudeCodeAgent.ReadSession(h), Target: out.File.FilePath, Seen: &seen}
	if out.File.StartLine > 1 || out.File.NumLines < out.File.TotalLines {
		req.Offset, req.Limit = max(out.File.StartLine, 1), out.File.NumLines
		if req.Limit == 0 {
			return "", nil // nothing delivered
		}
	}
	res, err := rc.Read(ctx, req)
	if errors.Is(err, readcache.ErrSeenDiffers) {
		return "", nil
	}
	if err != nil {
		return "", nil // outside the root, sensitive, too large: Read's answer stands, untracked
	}
	var reply []byte
	switch res.Mode {
	case readcache.ModeUnchanged, readcache.ModeUnchangedRange, readcache.ModeDiff:
		out.File.Content = res.Text
		out.File.NumLines = strings.Count(strings.TrimSuffix(res.Text, "\n"), "\n") + 1
		reply, err = json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
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
	return string(reply), nil
}
