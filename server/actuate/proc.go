package actuate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"pp-lsp/server/actuate/sandbox"
)

// capture keeps the head and the tail of a stream within a cap, and counts
// what it left out: the start says what a command did, the end how it
// failed.
type capture struct {
	max   int
	head  []byte
	tail  []byte // a ring of the last max/2 bytes once head is full
	pos   int
	total int64
}

func newCapture(max int) *capture { return &capture{max: max} }

// Write keeps what fits and counts the rest; it never fails.
func (c *capture) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	n := len(p)
	half := c.max / 2
	if room := c.max - half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(c.tail) < half {
			k := min(half-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		if half == 0 {
			break
		}
		k := copy(c.tail[c.pos:], p)
		c.pos = (c.pos + k) % half
		p = p[k:]
	}
	return n, nil
}

// String is the kept output, with a line saying how much was cut. A run
// of bytes the cut goes through (no space, tab or line break between it
// and the cut) is cut with it, up to maxCutRun bytes each side: it may be
// a piece of a secret, which no redactor knows from half of it (19 of an
// AWS key's 20 characters are no key to the rules, and all but one of
// them to whoever reads them).
func (c *capture) String() string {
	tail := append(append([]byte(nil), c.tail[c.pos:]...), c.tail[:c.pos]...)
	kept := int64(len(c.head) + len(tail))
	if kept == c.total {
		return string(c.head) + string(tail)
	}
	head := c.head
	for n := 0; n < maxCutRun && len(head) > 0 && !cutSpace(head[len(head)-1]); n++ {
		head = head[:len(head)-1]
	}
	for n := 0; n < maxCutRun && len(tail) > 0 && !cutSpace(tail[0]); n++ {
		tail = tail[1:]
	}
	kept = int64(len(head) + len(tail))
	return fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", bytes.ToValidUTF8(head, nil), c.total-kept, bytes.ToValidUTF8(tail, nil))
}

// maxCutRun bounds the bytes a cut takes of a run it goes through, each
// side: a secret's piece longer than this is long enough for the rules'
// high-entropy reading to find it.
const maxCutRun = 256

// cutSpace says whether c ends a run String cuts with the output.
func cutSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// cleanEnv is the environment of a channel's program: enough to find
// programs and read text, nothing that could hold a secret (no keys,
// tokens, agent sockets, proxies with credentials). Shell and eval get the
// sandbox's, stricter.
func cleanEnv(getenv func(string) string, dir string) []string {
	env := []string{"TERM=dumb", "PWD=" + dir, "PAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1"}
	path := getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env = append(env, "PATH="+path)
	for _, k := range []string{"HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"} {
		if v := getenv(k); v != "" && !strings.ContainsRune(v, 0) {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// ErrTimeout is wrapped by the error of a process killed by its timeout.
var ErrTimeout = errors.New("timed out")

// runConfined runs a shell or eval command in the sandbox, its output
// captured within the cap, killed (with everything it started) at the
// timeout or when ctx ends.
func (a *Actuators) runConfined(ctx context.Context, what string, c sandbox.Command, lim Limits) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	out := newCapture(lim.OutputCap)
	c.Stdout, c.Stderr = out, out
	start := time.Now()
	code, err := a.sandbox.Run(ctx, c)
	return processResult(ctx, what, out, code, err, time.Since(start), lim)
}

// runProcess runs argv in dir unconfined — a channel's own program, which
// the user configured and which may need the network — with the clean
// environment, stdin as given, output captured within the cap; the whole
// process group is killed at the timeout or when ctx ends.
func (a *Actuators) runProcess(ctx context.Context, what string, argv []string, dir string, stdin io.Reader, lim Limits) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = cleanEnv(a.cfg.Getenv, dir)
	cmd.Stdin = stdin
	out := newCapture(lim.OutputCap)
	cmd.Stdout, cmd.Stderr = out, out
	isolate(cmd)
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = nil
	} else if err != nil {
		err = fmt.Errorf("could not start: %w", err)
	}
	return processResult(ctx, what, out, cmd.ProcessState.ExitCode(), err, time.Since(start), lim)
}

// processResult says what a process did. A non-zero exit is not an
// error: it is in the result.
func processResult(ctx context.Context, what string, out *capture, code int, err error, elapsed time.Duration, lim Limits) (Result, error) {
	elapsed = elapsed.Round(time.Millisecond)
	res := Result{Output: out.String(), ExitCode: code}
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Summary = fmt.Sprintf("killed after the %s timeout", lim.Timeout)
		return res, fmt.Errorf("%s %w after %s", what, ErrTimeout, lim.Timeout)
	case err != nil && ctx.Err() != nil:
		res.Summary = "cancelled"
		return res, fmt.Errorf("%s: %w", what, ctx.Err())
	case err != nil:
		return res, fmt.Errorf("%s: %w", what, err)
	case code != 0:
		res.Summary = fmt.Sprintf("exit status %d after %s", code, elapsed)
		return res, nil
	}
	res.OK = true
	res.Summary = fmt.Sprintf("exit status 0 after %s", elapsed)
	return res, nil
}
