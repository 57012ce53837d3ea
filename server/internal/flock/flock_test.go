package flock

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary be the other process holding a lock.
func TestMain(m *testing.M) {
	if p := os.Getenv("PPLSP_FLOCK_CHILD"); p != "" {
		l, err := Acquire(context.Background(), p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("locked")
		ms, _ := strconv.Atoi(os.Getenv("PPLSP_FLOCK_HOLD_MS"))
		time.Sleep(time.Duration(ms) * time.Millisecond)
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
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
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "PPLSP_FLOCK_CHILD="+p, "PPLSP_FLOCK_HOLD_MS=600")
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
