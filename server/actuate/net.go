package actuate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"pp-lsp/gates"
)

// http makes the request as given; redirects are not followed (the gates
// checked this URL, not wherever a server sends us next).
func (a *Actuators) http(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.HTTPArgs)
	ctx, cancel := context.WithTimeout(ctx, a.cfg.HTTP.Timeout)
	defer cancel()
	var body io.Reader
	if args.Body != "" {
		body = strings.NewReader(args.Body)
	}
	r, err := http.NewRequestWithContext(ctx, strings.ToUpper(args.Method), args.URL, body)
	if err != nil {
		return Result{}, fmt.Errorf("http: %w", err)
	}
	r.Header.Set("User-Agent", "pp-lsp")
	if args.Body != "" {
		if json.Valid([]byte(args.Body)) {
			r.Header.Set("Content-Type", "application/json")
		} else {
			r.Header.Set("Content-Type", "text/plain; charset=utf-8")
		}
	}
	resp, err := a.cfg.HTTPClient.Do(r)
	if err != nil {
		return Result{}, fmt.Errorf("http %s %s: %w", r.Method, r.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	out := newCapture(a.cfg.HTTP.OutputCap)
	if _, err := io.Copy(out, resp.Body); err != nil {
		return Result{Summary: resp.Status}, fmt.Errorf("http %s %s: reading the answer: %w", r.Method, r.URL.Redacted(), err)
	}
	res := Result{
		OK:      resp.StatusCode < 400,
		Summary: "HTTP " + resp.Status,
		Output:  fmt.Sprintf("HTTP %s\nContent-Type: %s\n\n%s", resp.Status, resp.Header.Get("Content-Type"), out.String()),
	}
	if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		res.Summary += " (redirect to " + loc + ", not followed)"
	}
	return res, nil
}

// send delivers a message through a configured channel.
func (a *Actuators) send(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.SendArgs)
	ch, ok := a.cfg.Channels[args.Channel]
	if !ok || (len(ch.Command) == 0 && ch.Webhook == "") {
		return Result{}, fmt.Errorf("send: no channel %q is configured (add it under \"agent\": {\"channels\": {%q: {\"command\": [...]} or {\"webhook\": \"…\"}}} in config.json)", args.Channel, args.Channel)
	}
	if len(ch.Command) > 0 {
		argv := make([]string, len(ch.Command))
		for i, s := range ch.Command {
			argv[i] = strings.ReplaceAll(s, "{to}", args.To)
		}
		res, err := a.runProcess(ctx, "send via "+args.Channel, argv, a.paths.roots[0], strings.NewReader(args.Text), a.cfg.Shell)
		if err == nil && res.OK {
			res.Summary = fmt.Sprintf("sent to %s over %s (%s)", args.To, args.Channel, res.Summary)
		}
		return res, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.HTTP.Timeout)
	defer cancel()
	payload, _ := json.Marshal(map[string]string{"channel": args.Channel, "to": args.To, "text": args.Text})
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, ch.Webhook, bytes.NewReader(payload))
	if err != nil {
		return Result{}, fmt.Errorf("send via %s: the webhook: %w", args.Channel, err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "pp-lsp")
	resp, err := a.cfg.HTTPClient.Do(r)
	if err != nil {
		return Result{}, fmt.Errorf("send via %s: %w", args.Channel, err)
	}
	defer resp.Body.Close()
	out := newCapture(4 << 10)
	io.Copy(out, resp.Body)
	res := Result{OK: resp.StatusCode < 300, Summary: fmt.Sprintf("webhook answered HTTP %s", resp.Status), Output: out.String()}
	if res.OK {
		res.Summary = fmt.Sprintf("sent to %s over %s (%s)", args.To, args.Channel, res.Summary)
	}
	return res, nil
}
