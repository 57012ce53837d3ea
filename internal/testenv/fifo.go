package testenv

import (
	"os"
	"testing"
	"time"
)

// Promptly runs read, which is handed the FIFO at fifo (made with
// MakeFIFO), and returns its error; when read has not returned within a
// minute — it waits on the FIFO for a writer — the test fails, after a
// writer's open has let read go. The minute is no measure of speed: a
// refused FIFO returns at once, one waited on never does.
func Promptly(t testing.TB, fifo string, read func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatalf("reading the FIFO %s waited for a writer", fifo)
		return nil
	}
}
