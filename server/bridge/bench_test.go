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

// BenchmarkConnectHandshakePing measures what a genuine client waits for
// from dialling to its first answer: connect, the daemon's handshake, its
// own, the acknowledgement and a :PING's answer, over loopback, reported
// as the median and 99th percentile. "quiet": nothing else is connected.
// "idle-flood": 200 connections that never authenticate were opened and
// the handshake budget is full of idle ones each time the client dials
// (one more is opened after each try, to replace the one it evicted).
// "churn": 200 connections reopen as soon as the daemon closes them; the
// client connects again when it is evicted, and tries/op counts how often.
func BenchmarkConnectHandshakePing(b *testing.B) {
	run := func(b *testing.B, setup func(b *testing.B, d *daemon), after func(b *testing.B, d *daemon)) {
		d := benchDaemon(b)
		setup(b, d)
		var lat []time.Duration
		tries := 0
		for b.Loop() {
			start := time.Now()
			c, n, err := connectRetrying(d.addr, d.token, 30*time.Second)
			if err != nil {
				b.Fatalf("after %d tries: %v", n, err)
			}
			tries += n
			ping, _ := frame.Append(nil, []byte(`(:TYPE :REQUEST :META (:REQUEST-ID 1) :PAYLOAD (:ACTION :PING))`))
			if _, err := c.nc.Write(ping); err != nil {
				b.Fatal(err)
			}
			if p, err := readPayload(c.nc); err != nil || !bytes.Contains(p, []byte("pong")) {
				b.Fatalf("no pong: %q %v", p, err)
			}
			lat = append(lat, time.Since(start))
			c.nc.Close()
			after(b, d)
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		b.ReportMetric(float64(tries)/float64(len(lat)), "tries/op")
	}
	nothing := func(*testing.B, *daemon) {}
	b.Run("quiet", func(b *testing.B) { run(b, nothing, nothing) })
	b.Run("idle-flood", func(b *testing.B) {
		max := Config{}.withDefaults().MaxHandshaking
		var flood *idleFlood
		run(b, func(b *testing.B, d *daemon) {
			flood = holdIdle(b, d.addr, 200)
			waitFor(b, func() bool { return d.srv.Stats().Handshaking == max })
		}, func(b *testing.B, d *daemon) {
			flood.conns = append(flood.conns, holdIdle(b, d.addr, 1).conns...)
			waitFor(b, func() bool { return d.srv.Stats().Handshaking == max })
		})
	})
	b.Run("churn", func(b *testing.B) {
		run(b, func(b *testing.B, d *daemon) {
			opened := churn(b, d.addr, 200)
			waitFor(b, func() bool { return opened.Load() > 1000 })
		}, nothing)
	})
}

// benchDaemon serves until the benchmark ends.
func benchDaemon(b *testing.B) *daemon {
	srv, err := New(Config{Backend: Unavailable{Reason: "bench"}, Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := Listen(ctx, "127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	d := &daemon{srv: srv, addr: ln.Addr().String(), token: testToken, stop: cancel, done: make(chan error, 1)}
	go func() { d.done <- srv.Serve(ctx, ln) }()
	b.Cleanup(func() {
		cancel()
		<-d.done
	})
	return d
}

// waitFor polls cond for up to ten seconds.
func waitFor(b *testing.B, cond func() bool) {
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			b.Fatal("timed out waiting for the daemon")
		}
		time.Sleep(time.Millisecond)
	}
}
