package actuate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"pp-lsp/orgast"
	"pp-lsp/server/internal/orgtext"
)

// headlineBody is the byte range of h's body as memory defines it: after
// the headline line, its planning line and its property drawer, up to its
// first child, without the blank lines that end it.
func headlineBody(src []byte, h *orgast.Headline) (int, int) {
	start := orgtext.BodyStart(src, h)
	return start, max(start, orgtext.ContentEnd(src, start, h.Section.End))
}

// fileBody is the byte range of a file node's body: the text before the
// first headline after its keyword lines and file drawer. Text mixed
// between keyword lines has no one range, and is refused.
func fileBody(f *orgast.File) (int, int, error) {
	src := f.Src
	first := len(src)
	if len(f.Headlines) > 0 {
		first = f.Headlines[0].Line.Start
	}
	start := 0
	var structural []orgast.Range
	for _, k := range f.Keywords {
		if k.Node == -1 && k.Range.Start < first {
			structural = append(structural, k.Range)
		}
	}
	if f.FileDrawer != nil {
		structural = append(structural, f.FileDrawer.Range)
	}
	for _, r := range structural {
		start = max(start, orgtext.NextLine(src, r.End))
	}
	// Every line before start must be structural or blank.
	for off := 0; off < start; off = orgtext.NextLine(src, off) {
		le := orgtext.NextLine(src, off)
		line := bytes.TrimSpace(src[off:le])
		if len(line) == 0 {
			continue
		}
		inside := false
		for _, r := range structural {
			if off >= lineStart(src, r.Start) && off < r.End {
				inside = true
				break
			}
		}
		if !inside {
			return 0, 0, errors.New("the file's text before its first headline mixes keyword lines and text, so it has no single body to replace: use file_write")
		}
	}
	return start, max(start, orgtext.ContentEnd(src, start, first)), nil
}

func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// bodyText checks new body text for memory_edit: it must not hold a
// headline (that would change the outline, not the body) and ends with a
// newline.
func bodyText(content string) (string, error) {
	for i, l := range strings.Split(content, "\n") {
		t := strings.TrimRight(l, "\r")
		if strings.HasPrefix(t, "*") {
			rest := strings.TrimLeft(t, "*")
			if rest == "" || rest[0] == ' ' || rest[0] == '\t' {
				return "", fmt.Errorf("line %d of the new body is a headline; memory_edit replaces a body, use file_write to change the outline", i+1)
			}
		}
	}
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	return content, nil
}
