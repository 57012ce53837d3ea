package memory

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestMain lets the test binary act as a child process for the RSS
// benchmark (rssChild) and the kill -9 persistence test (storeChild).
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Child("rss", rssChild), testenv.Child("store", storeChild))
}

// rssChild is the measured process, opening the memex in the folder
// args[0]: Open with embedding, wait until every node has its vector,
// then report VmHWM (the peak RSS the kernel saw) and the live heap.
func rssChild(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "want DIR")
		return 2
	}
	dir := args[0]
	ctx := context.Background()
	m, err := Open(ctx, Options{Roots: []string{dir}, Embed: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := m.WaitEmbedded(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fg := m.Snapshot().Figures()
	hwm, rss := procStatus("VmHWM"), procStatus("VmRSS")
	fmt.Printf("headlines=%d vectors=%d hwm_kb=%d rss_kb=%d\n", fg.Headlines, fg.Embedded, hwm, rss)
	m.Close(ctx)
	return 0
}

// procStatus reads a "kB" field of /proc/self/status.
func procStatus(field string) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && k == field {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return -1
}

// BenchmarkRSS100k measures the peak RSS of a process holding the 100k
// headline memex with a 256-d vector for every node: a child process
// (this test binary again, default GC settings) opens and embeds it and
// reports VmHWM from /proc/self/status — the kernel's high-water mark of
// the resident set, file-backed pages included — so nothing of the
// benchmark's own memory counts.
func BenchmarkRSS100k(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("no /proc: peak RSS is read from /proc/self/status")
	}
	dir, _ := writeGenerated(b, corpusSource(b), bench100k())
	for b.Loop() {
		cmd := testenv.ChildCommand(b, "rss", nil, dir)
		out, err := cmd.Output()
		require.NoError(b, err, "%s", out)
		var headlines, vectors, hwm, rss int
		_, err = fmt.Sscanf(strings.TrimSpace(string(out)), "headlines=%d vectors=%d hwm_kb=%d rss_kb=%d", &headlines, &vectors, &hwm, &rss)
		require.NoError(b, err, "%s", out)
		require.Equal(b, 100_000, headlines)
		b.ReportMetric(float64(hwm)/1024, "peak-RSS-MB")
		b.ReportMetric(float64(rss)/1024, "final-RSS-MB")
		b.ReportMetric(float64(vectors), "vectors")
	}
}
