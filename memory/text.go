package memory

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// What counts as text, decided here once. A file under the roots that
// ends in ".org" but is not text (an image or an archive renamed, a file
// in UTF-16) is left out of the memex with a finding, so that its bytes
// never reach a model as context. The test looks at the first textSample
// bytes, as git and grep do:
//
//   - a NUL byte there means binary (no text encoding Emacs reads an Org
//     file in, UTF-16 aside, has one; random bytes have one in 8 KiB with
//     near certainty);
//   - more than one byte in maxInvalidShare not belonging to a UTF-8
//     sequence means another encoding or binary. The share is generous so
//     that a Latin-1 note with its accented letters (a few per cent of its
//     bytes) stays in; Cyrillic or CJK in a legacy code page, and binary
//     without NULs, run far above it.
const (
	textSample      = 8 << 10
	maxInvalidShare = 4 // a quarter
)

// ErrNotText is what errors.Is finds in the error CheckText returns.
var ErrNotText = errors.New("not a text file")

// notText says why a file is not text, as the end of a sentence.
type notText struct{ why string }

func (e notText) Error() string        { return e.why }
func (e notText) Is(target error) bool { return target == ErrNotText }

// CheckText reports whether src is text by the rule above, and if not,
// why, as the end of a sentence ("it holds NUL bytes …").
func CheckText(src []byte) error {
	sample := src[:min(len(src), textSample)]
	invalid := 0
	for i := 0; i < len(sample); {
		b := sample[i]
		if b == 0 {
			return notText{fmt.Sprintf("it holds NUL bytes (the first at byte %d), so it is binary, not Org text", i)}
		}
		if b < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && n == 1 {
			// A sequence cut by the end of the sample is not counted.
			if len(sample) == textSample && len(sample)-i < utf8.UTFMax && !utf8.FullRune(sample[i:]) {
				break
			}
			invalid++
		}
		i += n
	}
	if invalid*maxInvalidShare > len(sample) {
		return notText{fmt.Sprintf("%d of its first %d bytes are not UTF-8, so it is binary or in another encoding (save it as UTF-8)", invalid, len(sample))}
	}
	return nil
}
