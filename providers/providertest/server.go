// Package providertest runs loopback HTTP servers that speak the Ollama,
// OpenAI-compatible and Anthropic wire formats, byte for byte as their
// published references show, for tests of anything that talks to a model:
// the providers themselves, doctor, and the agent's scenarios.
//
// Invariant: a Server only ever listens on 127.0.0.1, answers exactly what
// the test queued (never a made-up answer: an unqueued request gets a 500
// saying so), and records every request it received.
package providertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header is sent as given (Content-Type defaults by Frames/Body).
	Header map[string]string
	// Body is written whole (error answers, model lists).
	Body string
	// Frames are written one by one, each flushed at once (a stream).
	Frames []string
	// FrameDelay waits before each frame.
	FrameDelay time.Duration
	// CutAfter, when > 0, hijacks the connection after that many frames and
	// closes it: a stream cut in the middle, as a crashed server leaves it.
	CutAfter int
	// Hang, after the frames, keeps the answer open without a byte more
	// until the client goes away.
	Hang bool
	// Silent never answers at all: no status, no headers, until the client
	// goes away (a server that accepted the connection and froze).
	Silent bool
}

// Recorded is one request as the server received it.
type Recorded struct {
	Method string
	Path   string // with the query, if any
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into a generic map (nil if not an object).
func (r Recorded) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// Server is a loopback server answering from a queue of Replies, with fixed
// answers for some routes.
type Server struct {
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	queue    []Reply
	routes   map[string]Reply
	requests []Recorded
	gone     chan string
}

// NewServer starts a server on 127.0.0.1 answering the queued replies in
// order; it is closed when the test ends.
func NewServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{queue: replies, routes: map[string]Reply{}, gone: make(chan string, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// Close stops the server (waiting for handlers, which all end when their
// client goes away).
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Push queues more replies.
func (s *Server) Push(rs ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// Drop discards the replies queued and not yet served, and returns how
// many there were: a test that queues more than a scenario may take (a
// reply for each turn an action's outcome could lead to) clears the rest
// before the next scenario.
func (s *Server) Drop() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.queue)
	s.queue = nil
	return n
}

// Route answers every request for "METHOD /path" with r (not from the queue).
func (s *Server) Route(methodPath string, r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[methodPath] = r
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// ClientGone receives the path of every request whose client went away
// while its answer was still open (a cancellation, a timeout). A test that
// cancels waits here to see that the connection was really closed.
func (s *Server) ClientGone() <-chan string { return s.gone }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.RequestURI()
	s.mu.Lock()
	s.requests = append(s.requests, Recorded{Method: r.Method, Path: path, Header: r.Header.Clone(), Body: body})
	reply, ok := s.routes[r.Method+" "+r.URL.Path]
	if !ok && len(s.queue) > 0 {
		reply, s.queue, ok = s.queue[0], s.queue[1:], true
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":"providertest: no reply queued for `+r.Method+" "+path+`"}`, http.StatusInternalServerError)
		return
	}
	s.answer(w, r, path, reply)
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, path string, reply Reply) {
	if reply.Silent {
		<-r.Context().Done()
		s.left(path)
		return
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", contentType(reply))
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if reply.Body != "" {
		io.WriteString(w, reply.Body)
	}
	rc := http.NewResponseController(w)
	rc.Flush()
	for i, f := range reply.Frames {
		if reply.CutAfter > 0 && i == reply.CutAfter {
			cut(rc)
			return
		}
		if reply.FrameDelay > 0 {
			select {
			case <-time.After(reply.FrameDelay):
			case <-r.Context().Done():
				s.left(path)
				return
			}
		}
		if _, err := io.WriteString(w, f); err != nil {
			s.left(path)
			return
		}
		if err := rc.Flush(); err != nil {
			s.left(path)
			return
		}
	}
	if reply.CutAfter > 0 && reply.CutAfter >= len(reply.Frames) {
		cut(rc)
		return
	}
	if reply.Hang {
		<-r.Context().Done()
		s.left(path)
	}
}

// left reports a client that went away (never blocking the handler).
func (s *Server) left(path string) {
	select {
	case s.gone <- path:
	default:
	}
}

// cut closes the connection under a response in progress: the client's
// chunked reader sees the body end without its last chunk.
func cut(rc *http.ResponseController) {
	conn, buf, err := rc.Hijack()
	if err != nil {
		return
	}
	buf.Flush()
	conn.Close()
}

func contentType(r Reply) string {
	if len(r.Frames) == 0 {
		return "application/json"
	}
	if bytes.HasPrefix([]byte(r.Frames[0]), []byte("{")) {
		return "application/x-ndjson"
	}
	return "text/event-stream"
}
