package seal

import (
	"os"
	"testing"

	"pp-lsp/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m, testenv.Child("writable", writableChild)) }

// writableChild exits 1 when the file args[0] is writable by others, 0
// when not.
func writableChild(args []string) int {
	fi, err := os.Stat(args[0])
	if err != nil {
		return 2
	}
	if WritableByOthers(fi) {
		return 1
	}
	return 0
}
