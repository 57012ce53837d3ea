package protect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"pp-lsp/server/seal"
)

// Finding is one line of `pp-lsp doctor` about the protected places.
type Finding struct {
	Failed  bool
	Subject string
	Detail  string
}

// Diagnose checks what `pp-lsp doctor` reports about the protected places:
// the data directory is outside every root, its key (once made) is sound,
// and flightplans.org and journal.org in each root are files of the
// server's own. What does not exist yet has nothing to report.
func Diagnose(roots []string, dataDir string) []Finding {
	var out []Finding
	if fi, err := os.Stat(dataDir); dataDir != "" && err == nil && fi.IsDir() {
		if r, in := Inside(dataDir, roots); in {
			out = append(out, Finding{true, "data dir " + dataDir, fmt.Sprintf("it is inside the memex root %s, where actions could reach the key and the records: set PASSEPARTOUT_DATA_DIR to a folder outside every root", r)})
		} else {
			out = append(out, Finding{false, "data dir " + dataDir, "outside every memex root"})
		}
		switch _, err := seal.Load(dataDir); {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, Finding{false, "key " + seal.Path(dataDir), "not made yet (pp-lsp makes it at its first start)"})
		case err != nil:
			out = append(out, Finding{true, "key " + seal.Path(dataDir), err.Error() + "; until it is fixed no Flight Plan runs and no journal head is recorded"})
		default:
			out = append(out, Finding{false, "key " + seal.Path(dataDir), "present, readable by its owner only"})
		}
	}
	for _, r := range roots {
		for _, n := range Names {
			p := filepath.Join(r, n)
			if _, err := os.Lstat(p); err != nil {
				continue
			}
			if err := OwnFile(p); err != nil {
				out = append(out, Finding{true, n + " " + p, err.Error()})
				continue
			}
			out = append(out, Finding{false, n + " " + p, "a regular file with one link"})
		}
	}
	return out
}
