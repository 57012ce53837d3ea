package flightplan

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"pp-lsp/gates"
	"pp-lsp/server/seal"
	"pp-lsp/server/workspace"
)

func BenchmarkParse(b *testing.B) {
	var src []byte
	for i := range 500 {
		a := gates.Build(gates.ShellArgs{Cmd: fmt.Sprintf("make target-%d", i), Cwd: "."}, "build it")
		out, err := workspace.Edit{Base: src, Changes: AppendTo(src, Render(Filing{ID: uuid.NewString(), Created: time.Now(), Action: a, Gate: "permissions"}))}.Apply()
		if err != nil {
			b.Fatal(err)
		}
		src = out
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if len(Parse(src)) != 500 {
			b.Fatal("plans lost")
		}
	}
}

// BenchmarkStanding is what checking one plan against its sealed filing
// record costs (a pickup does it for every plan not yet final).
func BenchmarkStanding(b *testing.B) {
	dir := b.TempDir()
	k, err := seal.LoadOrCreate(dir)
	if err != nil {
		b.Fatal(err)
	}
	s := OpenStore(dir, k)
	a := gates.Build(gates.ShellArgs{Cmd: "make test", Cwd: "."}, "build it")
	f := Filing{ID: uuid.NewString(), Created: time.Now(), Action: a, Gate: "permissions"}
	if err := s.SaveFiling(FilingRecord{ID: f.ID, ActionHash: a.Hash(), Gate: f.Gate, Filed: f.Created}); err != nil {
		b.Fatal(err)
	}
	p := Parse(Render(f))[0]
	for b.Loop() {
		if st := s.Standing(&p); st.Foreign != "" || st.Edited {
			b.Fatal(st)
		}
	}
}
