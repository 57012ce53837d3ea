package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"pp-lsp/server/agent"
)

// load brings the memex and the agent up, in the background of
// initialize: it waits for initialized, reads the client's settings
// (workspace/configuration), asks the client to watch the Org files,
// indexes the memex with $/progress, takes over the buffers opened
// meanwhile, publishes the memex and the agent on the host (which runs the
// agent's heartbeat), and starts the disk watcher and the first
// diagnostics.
func (s *Server) load(ctx context.Context) {
	defer s.markReady(nil)
	select {
	case <-s.initialized:
	case <-time.After(2 * time.Second): // a client that never says initialized still gets served
	case <-ctx.Done():
		return
	}
	s.pullConfiguration(ctx)
	s.registerWatcher(ctx)

	s.mu.Lock()
	set, roots := s.settings, s.roots
	s.mu.Unlock()
	env := set.env(s.getenv)
	cfgFile := set.ConfigFile
	if cfgFile == "" {
		cfgFile = s.opts.ConfigFile
	}

	prog := s.beginProgress(ctx, nil, "Indexing the memex", nil)
	var done, total atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() { // reports at most ten times a second, never from memory's goroutines
		defer close(stopped)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		last := int64(-1)
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				d, n := done.Load(), total.Load()
				if n > 0 && d != last {
					last = d
					prog.report(fmt.Sprintf("%d of %d files", d, n), percent(d, n))
				}
			}
		}
	}()
	setup := agent.Setup{
		Roots: roots, ConfigFile: cfgFile, Getenv: env, Logger: s.log, Serve: true,
		PrivacyTags: set.PrivacyTags, Sandbox: set.Sandbox, Progress: func(d, n int) { done.Store(int64(d)); total.Store(int64(n)) },
	}
	restorePace, paced := s.paceLoad(), false
	defer func() {
		if !paced {
			restorePace()
		}
	}()
	mx, err := agent.OpenMemex(ctx, setup)
	close(stop)
	<-stopped
	if err != nil {
		prog.end("the memex could not be opened")
		s.releaseSettingsNotes()
		s.markReady(err)
		// The process's other front ends say why to their clients.
		s.host.Up(nil, fmt.Errorf("pp-lsp could not open the memex: %w", err), nil)
		if ctx.Err() == nil {
			s.showMessage(protocol.MessageTypeError, fmt.Sprintf("pp-lsp could not open the memex: %v", err))
		}
		return
	}
	// The project's privacy tags add to those the memex opened with (the
	// settings', else the configuration's), for the agent's gates too.
	s.mu.Lock()
	extra := s.projectTags
	s.mu.Unlock()
	if len(extra) > 0 {
		s.addPrivacyTags(ctx, mx, extra)
		setup.PrivacyTags = mx.Snapshot().PrivacyTags()
	}
	setup.Workspace, setup.Memex, setup.Context, setup.Progress = editor{s}, mx, s.agentContext(), nil
	a, agentErr := agent.Open(ctx, setup)
	if agentErr != nil {
		a = nil
		if ctx.Err() == nil {
			s.showMessage(protocol.MessageTypeError, fmt.Sprintf("pp-lsp serves the memex without the agent: %v", agentErr))
		}
	}

	s.syncMu.Lock()
	s.adoptBuffers(ctx, mx)
	s.mu.Lock()
	if ctx.Err() != nil { // shut down meanwhile: nobody will close them
		s.mu.Unlock()
		s.syncMu.Unlock()
		if a != nil {
			a.Close(context.WithoutCancel(ctx))
		}
		mx.Close(context.WithoutCancel(ctx))
		return
	}
	s.mx, s.agent = mx, a
	extra = s.projectTags
	s.mu.Unlock()
	s.host.Up(a, agentErr, func(ctx context.Context) error {
		var errs []error
		if a != nil {
			if err := a.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("closing the agent: %w", err))
			}
		}
		if err := mx.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("saving the memex: %w", err))
		}
		return errors.Join(errs...)
	})
	s.seen.mu.Lock()
	s.seen.snap = mx.Snapshot()
	s.seen.mu.Unlock()
	s.markReady(nil)
	s.syncMu.Unlock()
	if len(extra) > 0 { // tags the project added while indexing
		s.addPrivacyTags(ctx, mx, extra)
	}

	files := mx.Snapshot().FileCount()
	prog.report(fmt.Sprintf("%d of %d files", files, files), percent(1, 1))
	prog.end(fmt.Sprintf("indexed %d files", files))
	s.releaseSettingsNotes()

	s.diags.everything()
	s.spawn(s.watch)
	s.spawn(func(ctx context.Context) { s.setMemoryBudget(ctx, mx) })
	paced = true
	s.spawn(func(ctx context.Context) { restoreAfterEmbedding(ctx, mx, restorePace) })
	// The figures resolve every link of the memex: counted last.
	f := mx.Snapshot().Figures()
	s.logMessage(protocol.MessageTypeInfo, fmt.Sprintf("pp-lsp: the memex under %v holds %d files, %d headlines, %d IDs", roots, f.Files, f.Headlines, f.IDs))
}

// percent is done/total as a whole percentage.
func percent(done, total int64) uint32 {
	if total <= 0 {
		return 0
	}
	return uint32(min(100, done*100/total))
}

// markReady closes ready once, recording why the memex is missing (nil:
// it is there).
func (s *Server) markReady(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.ready:
	default:
		s.readyErr = err
		close(s.ready)
	}
}

// isReady reports whether the memex has come up (or failed to).
func (s *Server) isReady() bool {
	select {
	case <-s.ready:
		return true
	default:
		return false
	}
}

// waitReady waits for the memex to come up (or fail to: the request is
// then served from the open buffers alone).
func (s *Server) waitReady(ctx context.Context) error {
	select {
	case <-s.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
