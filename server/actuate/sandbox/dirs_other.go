//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// openDir opens a folder (no sandbox runs here: no command races it).
func openDir(dir string) (*os.File, error) { return os.Open(dir) }

// moveAsideAt renames path/name to the first free NAME.refused(-N).
func moveAsideAt(_ *os.File, path, name string) (string, error) {
	p := filepath.Join(path, name)
	to := p + ".refused"
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		to = fmt.Sprintf("%s.refused-%d", p, i)
	}
	if err := os.Rename(p, to); err != nil {
		return "", fmt.Errorf("moving aside %s, which a command made: %w", p, err)
	}
	return p + " (now " + filepath.Base(to) + ")", nil
}
