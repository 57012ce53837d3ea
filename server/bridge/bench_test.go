package bridge

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"pp-lsp/server/frame"
	"pp-lsp/server/plist"
)

// typicalRequest is an :ASK as the elisp bridge sends it.
const typicalRequest = `(:TYPE :REQUEST :META (:SOURCE :EMACS :SESSION-ID "s-1f3a" :REQUEST-ID 42) :PAYLOAD (:ACTION :ASK :TEXT "What is left to do on the \"bridge\" project?" :FILE "/home/me/notes/projects.org" :LINE 128) :DEPTH 0)`

// BenchmarkDecodeFrames measures what the daemon does with each incoming
// frame before serving it: the frame, the plist, the envelope, the request id.
func BenchmarkDecodeFrames(b *testing.B) {
	const perStream = 1000
	var stream []byte
	for range perStream {
		stream, _ = frame.Append(stream, []byte(typicalRequest))
	}
	lim := Config{}.withDefaults().Limits
	src := bytes.NewReader(stream)
	b.SetBytes(int64(len(stream) / perStream))
	b.ReportAllocs()
	n := 0
	var rd *frame.Reader
	for b.Loop() {
		if n%perStream == 0 {
			src.Reset(stream)
			rd = frame.NewReader(src, 0)
		}
		n++
		payload, err := rd.Next()
		if err != nil {
			b.Fatal(err)
		}
		v, err := plist.ReadWith(payload, lim)
		if err != nil {
			b.Fatal(err)
		}
		p, err := plist.AsPlist(v)
		if err != nil {
			b.Fatal(err)
		}
		env, err := parseEnvelope(p)
		if err != nil {
			b.Fatal(err)
		}
		id, _ := env.meta.Get(kRequestID)
		if _, err := requestKey(id); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkPingRoundTrip measures a :PING's round trip on loopback, one at a
// time on one authenticated connection, and reports the median and 99th
// percentile.
func BenchmarkPingRoundTrip(b *testing.B) {
	srv, err := New(Config{Backend: Unavailable{Reason: "bench"}, Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ln, err := Listen(ctx, "127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ctx, ln)
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	rd := frame.NewReader(nc, 0)
	write := func(payload string) {
		f, _ := frame.Append(nil, []byte(payload))
		if _, err := nc.Write(f); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := rd.Next(); err != nil { // the daemon's handshake
		b.Fatal(err)
	}
	write(fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q))`, testToken))
	if _, err := rd.Next(); err != nil { // the acknowledgement
		b.Fatal(err)
	}
	ping, _ := frame.Append(nil, []byte(`(:TYPE :REQUEST :META (:REQUEST-ID 1) :PAYLOAD (:ACTION :PING))`))
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := nc.Write(ping); err != nil {
			b.Fatal(err)
		}
		if _, err := rd.Next(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
