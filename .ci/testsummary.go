// testsummary reads `go test -json` on stdin and prints what a person
// wants from `make test`: one line per package as `go test` prints it
// (with the output of every failed test and every build error), a line
// naming the packages still running after each quiet half minute, and at
// the end the skipped tests with their reasons, the slowest tests and the
// total time (since PP_TEST_START_UPTIME, seconds of /proc/uptime, or else
// PP_TEST_START, unix seconds, when set: make test sets both before its deps
// and vet; the uptime does not step when a virtual machine's wall clock
// does). It exits 1 if any package failed.
//
// Run it as `go test -json ./... | go run .ci/testsummary.go` (the .ci
// folder is no package of the module; this file is its own program).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// event is one record of `go test -json` (cmd/test2json).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output and build-fail
	Test       string
	Elapsed    float64
	Output     string
}

type testKey struct{ pkg, test string }

type skip struct {
	key    testKey
	reason string
}

type timing struct {
	key     testKey
	elapsed float64
}

// summary is the state of one run.
type summary struct {
	mu       sync.Mutex
	out      io.Writer
	start    time.Time
	lastLine time.Time
	running  map[string]time.Time // package → when it started
	output   map[testKey][]string // output kept until the test's end
	build    map[string][]string  // build output per import path
	skips    []skip
	times    []timing
	failed   []string
}

func main() {
	s := &summary{
		out: os.Stdout, start: time.Now(), lastLine: time.Now(),
		running: map[string]time.Time{}, output: map[testKey][]string{}, build: map[string][]string{},
	}
	done := make(chan struct{})
	go s.heartbeat(done, 30*time.Second)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || (e.Action == "" && e.Package == "") {
			s.println(sc.Text()) // not an event: go test's own words (vet, a panic before JSON)
			continue
		}
		s.handle(e)
	}
	close(done)
	s.finish()
	if len(s.failed) > 0 {
		os.Exit(1)
	}
}

func (s *summary) println(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.out, format+"\n", a...)
	s.lastLine = time.Now()
}

func (s *summary) handle(e event) {
	k := testKey{e.Package, e.Test}
	switch e.Action {
	case "build-output":
		s.build[e.ImportPath] = append(s.build[e.ImportPath], e.Output)
	case "build-fail":
		s.println("%s", strings.TrimRight(strings.Join(s.build[e.ImportPath], ""), "\n"))
	case "start":
		s.mu.Lock()
		s.running[e.Package] = e.Time
		s.mu.Unlock()
	case "output":
		s.output[k] = append(s.output[k], e.Output)
	case "pass", "fail", "skip":
		if e.Test != "" {
			s.endTest(k, e)
			return
		}
		s.endPackage(e)
	}
}

func (s *summary) endTest(k testKey, e event) {
	lines := s.output[k]
	delete(s.output, k)
	if !strings.Contains(e.Test, "/") {
		s.times = append(s.times, timing{k, e.Elapsed})
	}
	switch e.Action {
	case "skip":
		s.skips = append(s.skips, skip{k, skipReason(lines)})
	case "fail":
		// A parent's output repeats its subtests' "--- FAIL" lines; print
		// each test's own output once, as go test does.
		s.println("%s", strings.TrimRight(strings.Join(lines, ""), "\n"))
	}
}

// skipReason is what a skipped test logged: its output without the
// "=== RUN" and "--- SKIP" lines, on one line.
func skipReason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

func (s *summary) endPackage(e event) {
	s.mu.Lock()
	delete(s.running, e.Package)
	s.mu.Unlock()
	k := testKey{e.Package, ""}
	lines := s.output[k]
	delete(s.output, k)
	switch {
	case e.Action == "skip":
		s.println("?   \t%s\t[no test files]", e.Package)
	case e.Action == "fail":
		s.failed = append(s.failed, e.Package)
		// The package's own output (a panic, a timeout, a build error of
		// its tests) besides its tests'.
		for _, l := range lines {
			if t := strings.TrimSpace(l); t != "FAIL" && !strings.HasPrefix(t, "FAIL\t") && t != "" {
				s.println("%s", strings.TrimRight(l, "\n"))
			}
		}
		s.println("FAIL\t%s\t%.3fs", e.Package, e.Elapsed)
	default:
		s.println("ok  \t%s\t%.3fs", e.Package, e.Elapsed)
	}
}

// heartbeat names the packages still running whenever nothing was printed
// for a while, so that a long package is not mistaken for a hang.
func (s *summary) heartbeat(done <-chan struct{}, quiet time.Duration) {
	tick := time.NewTicker(quiet / 3)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			s.mu.Lock()
			if now.Sub(s.lastLine) >= quiet {
				var names []string
				for p, t := range s.running {
					names = append(names, fmt.Sprintf("%s (%s)", p, now.Sub(t).Round(time.Second)))
				}
				sort.Strings(names)
				if len(names) > 0 {
					fmt.Fprintf(s.out, "    … still running: %s\n", strings.Join(names, ", "))
				} else {
					fmt.Fprintf(s.out, "    … building test binaries (%s so far)\n", now.Sub(s.start).Round(time.Second))
				}
				s.lastLine = now
			}
			s.mu.Unlock()
		}
	}
}

func (s *summary) finish() {
	fmt.Fprintln(s.out)
	if len(s.skips) == 0 {
		fmt.Fprintln(s.out, "skipped: none")
	} else {
		fmt.Fprintf(s.out, "skipped: %d tests (under CI=true a missing prerequisite fails instead)\n", len(s.skips))
		for _, sk := range s.skips {
			fmt.Fprintf(s.out, "  %s %s: %s\n", sk.key.pkg, sk.key.test, sk.reason)
		}
	}
	slices.SortFunc(s.times, func(a, b timing) int {
		switch {
		case a.elapsed > b.elapsed:
			return -1
		case a.elapsed < b.elapsed:
			return 1
		}
		return 0
	})
	if n := min(5, len(s.times)); n > 0 {
		fmt.Fprintln(s.out, "slowest tests:")
		for _, tm := range s.times[:n] {
			fmt.Fprintf(s.out, "  %6.1fs  %s %s\n", tm.elapsed, tm.key.pkg, tm.key.test)
		}
	}
	verdict := "all packages passed"
	if len(s.failed) > 0 {
		verdict = fmt.Sprintf("FAILED: %s", strings.Join(s.failed, ", "))
	}
	goTest := time.Since(s.start).Round(time.Second)
	total := fmt.Sprintf("go test took %s", goTest)
	if all, ok := sinceTestStart(); ok && all >= goTest {
		total = fmt.Sprintf("%s in all (go test %s)", all, goTest)
	}
	fmt.Fprintf(s.out, "total: %s; %s\n", total, verdict)
}

// sinceTestStart is the time since make test began: by the uptime clock
// when both ends can read it, else by the wall clock. It is false when
// neither start is known, or the wall clock stepped back since.
func sinceTestStart() (time.Duration, bool) {
	if start, err := strconv.ParseFloat(os.Getenv("PP_TEST_START_UPTIME"), 64); err == nil {
		if now, ok := uptime(); ok && now >= start {
			return time.Duration((now - start) * float64(time.Second)).Round(time.Second), true
		}
	}
	since, err := strconv.ParseInt(os.Getenv("PP_TEST_START"), 10, 64)
	if err != nil {
		return 0, false
	}
	d := time.Since(time.Unix(since, 0)).Round(time.Second)
	return d, d >= 0
}

// uptime is the first field of /proc/uptime (Linux), in seconds.
func uptime() (float64, bool) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}
