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
	// Fix says how to mend a failed finding ("" when Detail says it).
	Fix string
}

// Diagnose checks what `pp-lsp doctor` reports about the protected places:
// the data directory is outside every root, its key (once made) is sound,
// and flightplans.org and journal.org in each root are files of the
// server's own. What does not exist yet has nothing to report.
func Diagnose(roots []string, dataDir string) []Finding {
	var out []Finding
	if fi, err := os.Stat(dataDir); dataDir != "" && err == nil && fi.IsDir() {
		if r, in := Inside(dataDir, roots); in {
			out = append(out, Finding{Failed: true, Subject: "data dir " + dataDir,
				Detail: fmt.Sprintf("it is inside the memex root %s, where actions could reach the key and the records", r),
				Fix:    "set PASSEPARTOUT_DATA_DIR to a folder outside every root"})
		} else {
			out = append(out, Finding{Subject: "data dir " + dataDir, Detail: "outside every memex root"})
		}
		switch _, err := seal.Load(dataDir); {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, Finding{Subject: "key " + seal.Path(dataDir), Detail: "not made yet (pp-lsp makes it at its first start)"})
		case err != nil:
			out = append(out, Finding{Failed: true, Subject: "key " + seal.Path(dataDir),
				Detail: err.Error() + "; until it is fixed no Flight Plan runs and no journal head is recorded",
				Fix:    "fix what it says, or remove it so that the server makes a new one at its next start (plans filed under the old key then become foreign)"})
		default:
			out = append(out, Finding{Subject: "key " + seal.Path(dataDir), Detail: "present, readable by its owner only"})
		}
	}
	for _, r := range roots {
		for _, n := range Names {
			p := filepath.Join(r, n)
			if _, err := os.Lstat(p); err != nil {
				continue
			}
			if err := OwnFile(p); err != nil {
				out = append(out, Finding{Failed: true, Subject: n + " " + p, Detail: err.Error(),
					Fix: "make it a regular file of your own (no symlink, no other hard link, no write for others), outside synced or shared folders"})
				continue
			}
			out = append(out, Finding{Subject: n + " " + p, Detail: "a regular file of yours with one link, that only you can write"})
		}
	}
	return out
}
