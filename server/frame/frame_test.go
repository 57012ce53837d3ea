package frame

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendHeader(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "000000"}, {0x2C, "00002C"}, {0xABCDEF, "ABCDEF"}, {MaxPayload, "FFFFFF"},
	}
	for _, tt := range tests {
		got, err := AppendHeader([]byte("x"), tt.n)
		require.NoError(t, err)
		assert.Equal(t, "x"+tt.want, string(got))
	}
	for _, n := range []int{-1, MaxPayload + 1} {
		_, err := AppendHeader(nil, n)
		assert.ErrorIs(t, err, ErrTooLarge, "%d", n)
	}
}

func TestBeginEnd(t *testing.T) {
	buf, start := Begin([]byte("prefix"))
	buf = append(buf, `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "0.4.0"))`...)
	require.NoError(t, End(buf, start))
	assert.Equal(t, `prefix00003D(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "0.4.0"))`, string(buf))

	r := NewReader(bytes.NewReader(buf[len("prefix"):]), 0)
	p, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "0.4.0"))`, string(p))
}

// readAll reads frames until an error; it returns the payloads and the error.
func readAll(r *Reader) ([]string, error) {
	var out []string
	for {
		p, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, string(p))
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		max    int
		want   []string
		check  func(t *testing.T, err error)
	}{
		{"one frame", "000003abc", 0, []string{"abc"}, isEOF},
		{"several frames in one read", "000001a000002bc000000000003def", 0, []string{"a", "bc", "", "def"}, isEOF},
		{"lower-case hex", "00000ahellohello", 0, []string{"hellohello"}, isEOF},
		{"empty stream", "", 0, nil, isEOF},
		{"cut in the header", "0000", 0, nil, isCut},
		{"cut in the payload", "000005ab", 0, nil, isCut},
		{"cut after a good frame", "000001a00", 0, []string{"a"}, isCut},
		{"bad hex", "00zz12(:A 1)", 0, nil, isHeader("00zz12")},
		{"sign in the header", "-00001x", 0, nil, isHeader("-00001")},
		{"space in the header", " 00001x", 0, nil, isHeader(" 00001")},
		{"at the maximum", "000004abcd", 4, []string{"abcd"}, isEOF},
		{"over the maximum", "000005abcde", 4, nil, isTooLarge},
		{"over the maximum after a frame", "000001a000005abcde", 4, []string{"a"}, isTooLarge},
		{"largest header, default maximum", "FFFFFF", 0, nil, isCut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"whole", "byte by byte", "half"} {
				var src io.Reader = strings.NewReader(tt.stream)
				switch mode {
				case "byte by byte":
					src = iotest.OneByteReader(src)
				case "half":
					src = iotest.HalfReader(src)
				}
				got, err := readAll(NewReader(src, tt.max))
				assert.Equal(t, tt.want, got, mode)
				tt.check(t, err)
			}
		})
	}
}

func isEOF(t *testing.T, err error) {
	t.Helper()
	assert.Equal(t, io.EOF, err, "a clean end is io.EOF itself")
}

func isCut(t *testing.T, err error) {
	t.Helper()
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func isTooLarge(t *testing.T, err error) {
	t.Helper()
	assert.ErrorIs(t, err, ErrTooLarge)
}

func isHeader(h string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var he *HeaderError
		require.ErrorAs(t, err, &he)
		assert.Equal(t, h, string(he.Header))
	}
}

func TestReaderBufferGrowsAndShrinks(t *testing.T) {
	big := strings.Repeat("x", 200_000)
	var stream []byte
	stream, _ = Append(stream, []byte(big))
	for range 3 {
		stream, _ = Append(stream, []byte("small"))
	}
	r := NewReader(bytes.NewReader(stream), 0)
	p, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, big, string(p))
	for range 3 {
		p, err = r.Next()
		require.NoError(t, err)
		assert.Equal(t, "small", string(p))
	}
	assert.Equal(t, 0, r.Buffered())
	_, err = r.Next()
	assert.Equal(t, io.EOF, err)
	assert.LessOrEqual(t, len(r.buf), 16*initialBuffer, "the buffer is given back after a big frame")
}

// TestReaderNeverAllocatesPastTheLimit: a header claiming a huge frame costs
// nothing until the bytes arrive, and never more than the maximum.
func TestReaderNeverAllocatesPastTheLimit(t *testing.T) {
	r := NewReader(strings.NewReader("FFFFFF"+strings.Repeat("a", 100)), 1000)
	_, err := r.Next()
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.LessOrEqual(t, len(r.buf), initialBuffer)
}

func TestReaderSetMaxPayload(t *testing.T) {
	r := NewReader(strings.NewReader("000004abcd000004abcd"), 0)
	r.SetMaxPayload(3)
	_, err := r.Next()
	assert.ErrorIs(t, err, ErrTooLarge)

	r = NewReader(strings.NewReader("000002ab000004abcd"), 2)
	p, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "ab", string(p))
	r.SetMaxPayload(0) // back to the largest
	p, err = r.Next()
	require.NoError(t, err)
	assert.Equal(t, "abcd", string(p))
}

func TestReaderStall(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	r := NewReader(server, 0)
	r.SetStallTimeout(50 * time.Millisecond)
	go func() {
		_, _ = client.Write([]byte("00000Aabc")) // 3 of 10 payload bytes, then silence
	}()
	start := time.Now()
	_, err := r.Next()
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.Contains(t, err.Error(), "stalled 9 bytes in")
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestReaderIdleDeadline(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	r := NewReader(server, 0)
	r.SetIdleDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := r.Next()
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.NotContains(t, err.Error(), "stalled", "no frame had begun")

	// Cleared, the reader waits as long as it takes between frames, and the
	// stall timeout does not apply before a frame begins.
	r.SetIdleDeadline(time.Time{})
	r.SetStallTimeout(20 * time.Millisecond)
	got := make(chan string, 1)
	go func() {
		p, err := r.Next()
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(p)
	}()
	select {
	case s := <-got:
		t.Fatalf("Next returned %q while nothing was sent", s)
	case <-time.After(150 * time.Millisecond):
	}
	_, err = client.Write([]byte("000002hi"))
	require.NoError(t, err)
	assert.Equal(t, "hi", <-got)
}

// FuzzReader: any stream yields frames whose lengths add up, then an error;
// never a panic.
func FuzzReader(f *testing.F) {
	f.Add([]byte("000003abc000000"), 16)
	f.Add([]byte("00zz12"), 0)
	f.Add([]byte("FFFFFFabc"), 4)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		max = max % 1024
		r := NewReader(iotest.HalfReader(bytes.NewReader(data)), max)
		used := 0
		for {
			p, err := r.Next()
			if err != nil {
				if errors.Is(err, io.EOF) && used != len(data) {
					t.Fatalf("clean EOF after %d of %d bytes", used, len(data))
				}
				return
			}
			used += HeaderLen + len(p)
			if used > len(data) {
				t.Fatalf("frames cover %d bytes of %d", used, len(data))
			}
		}
	})
}

func BenchmarkReader(b *testing.B) {
	payload := []byte(`(:TYPE :REQUEST :META (:REQUEST-ID 42) :PAYLOAD (:ACTION :PING))`)
	var stream []byte
	for range 1000 {
		stream, _ = Append(stream, payload)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	src := bytes.NewReader(stream)
	for b.Loop() {
		src.Reset(stream)
		r := NewReader(src, 0)
		for range 1000 {
			if _, err := r.Next(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "frames/s")
}
