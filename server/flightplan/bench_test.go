package flightplan

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"pp-lsp/gates"
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
