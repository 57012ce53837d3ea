package actuate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"pp-lsp/server/workspace"
)

// Current reads a file a restore would write (undo): inside the roots and
// no protected place, by the same rule as file_write, as the user sees it
// now (the editor's buffer when it is open).
func (a *Actuators) Current(path string) (workspace.Current, error) {
	t, err := a.paths.writable(path)
	if err != nil {
		return workspace.Current{}, err
	}
	return a.read(t.abs, t.c)
}

// Restore puts text (or, when exists is unset, no file) where cur was read
// by Current: through the editor when the file is open there, else
// atomically in its folder, after checking that the file still holds
// cur's text — never behind a buffer, never over someone else's change,
// never outside the roots or into a protected place.
func (a *Actuators) Restore(ctx context.Context, cur workspace.Current, text []byte, exists bool, label string) error {
	t, err := a.paths.writable(cur.Path)
	if err != nil {
		return err
	}
	if !exists && cur.Open {
		return fmt.Errorf("%s is open in the editor: close it, then undo again to remove it", t.rel)
	}
	if cur.Open {
		_, err := a.cfg.Files.Write(ctx, cur, []workspace.Change{{Start: 0, End: len(cur.Text), NewText: string(text)}}, workspace.Meta{Label: label})
		return err
	}
	dir, name, err := a.paths.openFolder(t)
	if err != nil {
		return err
	}
	defer dir.Close()
	defer a.reload(context.WithoutCancel(ctx), t.abs, t.c)
	if exists {
		_, err := a.cfg.Files.Write(ctx, cur, []workspace.Change{{Start: 0, End: len(cur.Text), NewText: string(text)}}, workspace.Meta{Label: label, Root: dir, Rel: name})
		return err
	}
	if !cur.Exists {
		return nil
	}
	disk, err := dir.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", t.rel, err)
	case !bytes.Equal(disk, cur.Text):
		return fmt.Errorf("removing %s: %w", t.rel, workspace.ErrChangedMeanwhile)
	}
	if fi, err := dir.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("removing %s: it is not a regular file", t.rel)
	}
	if err := dir.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", t.rel, err)
	}
	return nil
}
