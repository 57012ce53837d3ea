package flock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestMain lets the test binary be the other process holding a lock.
func TestMain(m *testing.M) { testenv.Main(m, testenv.Child("holder", holder)) }

// holder takes the lock PATH, says "locked", and holds it for MS
// milliseconds: args PATH MS.
func holder(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "want PATH MS")
		return 2
	}
	l, err := Acquire(context.Background(), args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("locked")
	ms, _ := strconv.Atoi(args[1])
	time.Sleep(time.Duration(ms) * time.Millisecond)
	l.Release()
	return 0
}

func TestExcludesGoroutines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "locks", "x.lock")
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			l, err := Acquire(context.Background(), p)
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			inside++
			most = max(most, inside)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			inside--
			mu.Unlock()
			assert.NoError(t, l.Release())
		})
	}
	wg.Wait()
	assert.Equal(t, 1, most)
}

func TestExcludesProcessesAndCanBeCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	cmd := testenv.ChildCommand(t, "holder", nil, p, "600")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	buf := make([]byte, 7)
	_, err = out.Read(buf)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(buf), "locked"))

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = Acquire(ctx, p)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the other process holds it")

	start := time.Now()
	l, err := Acquire(context.Background(), p)
	require.NoError(t, err)
	assert.Greater(t, time.Since(start), 200*time.Millisecond)
	require.NoError(t, l.Release())
	require.NoError(t, l.Release(), "twice is harmless")
	require.NoError(t, cmd.Wait())
}
