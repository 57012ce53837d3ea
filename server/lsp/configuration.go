package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory"
)

// The settings arrive three ways: initializationOptions (read by
// initialize), the answer to workspace/configuration for the section
// "passepartout" (asked after initialized, and again on every
// didChangeConfiguration, when the client answers that request), and the
// settings pushed with workspace/didChangeConfiguration (either
// {"passepartout": {…}} or the section itself). Each source overrides
// the fields it sets.

// configSection is the section the server asks for.
const configSection = "passepartout"

// pullConfiguration asks the client for the section, when it can answer.
func (s *Server) pullConfiguration(ctx context.Context) {
	s.mu.Lock()
	supported := s.client.configuration
	s.mu.Unlock()
	if !supported {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var res []json.RawMessage
	params := map[string]any{"items": []map[string]string{{"section": configSection}}}
	if err := protocol.Call(ctx, s.conn, protocol.MethodWorkspaceConfiguration, params, &res); err != nil {
		s.log.Debug("workspace/configuration was not answered", "err", err)
		return
	}
	if len(res) == 0 {
		return
	}
	s.applySettings(res[0], "workspace/configuration")
}

// didChangeConfiguration takes the pushed settings, then asks for the
// section again when the client answers workspace/configuration (eglot
// pushes nothing useful, Neovim 0.7 pushes and cannot be asked).
func (s *Server) didChangeConfiguration(_ context.Context, params jsonrpc2.RawMessage) error {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if !absent(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			return fmt.Errorf("the settings do not decode: %w", err)
		}
	}
	if raw := sectionOf(p.Settings); raw != nil {
		s.applySettings(raw, "workspace/didChangeConfiguration")
	}
	s.spawn(s.pullConfiguration)
	return nil
}

// sectionOf picks the "passepartout" object out of pushed settings, which
// may also be the section itself; nil when there is nothing to take.
func sectionOf(settings json.RawMessage) json.RawMessage {
	if absent(settings) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(settings, &m); err != nil {
		return nil
	}
	if raw, ok := m[configSection]; ok {
		return raw
	}
	if len(m) == 0 {
		return nil
	}
	return settings
}

// applySettings lays raw, the project's settings, over the current
// settings (what projectSettings keeps of them) and applies what can
// change in a live session. A key the project may not set is ignored
// whatever its value, with the one warning every such key gets: a
// refused key's value is never parsed.
func (s *Server) applySettings(raw json.RawMessage, source string) {
	raw, refused := withoutRefused(raw)
	set, unknown, err := parseSettings(raw)
	if err != nil {
		s.log.Warn("the project's settings are ignored", "source", source, "err", err)
		s.sayOfSettings(protocol.MessageTypeError, fmt.Sprintf("pp-lsp ignores the project's settings: %v", err))
		return
	}
	if len(unknown) > 0 {
		s.logMessage(protocol.MessageTypeWarning, fmt.Sprintf("pp-lsp ignores unknown settings from %s: %s", source, strings.Join(unknown, ", ")))
	}
	set, added, ignored := projectSettings(set)
	if ignored = inKeyOrder(append(refused, ignored...)); len(ignored) > 0 {
		s.log.Warn("project settings ignored", "source", source, "keys", ignored)
		s.sayOfSettings(protocol.MessageTypeWarning, fmt.Sprintf("pp-lsp ignores %s in the project's settings: they may come from a file in the memex anyone could have written, so these come only from initializationOptions, the environment or the configuration file", strings.Join(ignored, ", ")))
	} else {
		s.sayOfSettings(0, "")
	}
	s.mu.Lock()
	set = set.lowerOnly(s.settings, s.getenv)
	s.settings = s.settings.over(set)
	s.projectTags = addTags(s.projectTags, added)
	mx, extra := s.mx, s.projectTags
	s.mu.Unlock()
	if mx != nil && len(extra) > 0 {
		// At once, not in the background: a request after the settings
		// must not show a node they made private.
		s.addPrivacyTags(s.bg, mx, extra)
	}
}

// withoutRefused is raw without the keys of the schema that a project
// may not set (projectKeeps, and privacyTags), which it names in
// settingKeys' order; raw itself when it is no JSON object (parseSettings
// says so).
func withoutRefused(raw json.RawMessage) (json.RawMessage, []string) {
	var m map[string]json.RawMessage
	if absent(bytes.TrimSpace(raw)) || json.Unmarshal(raw, &m) != nil {
		return raw, nil
	}
	var refused []string
	for _, k := range settingKeys() {
		if _, ok := m[k]; ok && k != "privacyTags" && !slices.Contains(projectKeeps(), k) {
			refused = append(refused, k)
			delete(m, k)
		}
	}
	if len(refused) == 0 {
		return raw, nil
	}
	out, err := json.Marshal(m)
	if err != nil { // raw values that decoded always encode
		return raw, nil
	}
	return out, refused
}

// inKeyOrder is keys, once each, in settingKeys' order.
func inKeyOrder(keys []string) []string {
	var out []string
	for _, k := range settingKeys() {
		if slices.Contains(keys, k) {
			out = append(out, k)
		}
	}
	return out
}

// heldMessage is a window/showMessage not yet sent.
type heldMessage struct {
	typ protocol.MessageType
	msg string
}

// sayOfSettings shows what the project's settings had to say (msg; ""
// when they had nothing to say), once: the same words again — eglot
// pushes the settings with didChangeConfiguration and answers
// workspace/configuration twice — are not said twice in a row. While the
// memex is being indexed it is held until indexing ends
// (releaseSettingsNotes), so that "indexed N files" does not cover it.
func (s *Server) sayOfSettings(t protocol.MessageType, msg string) {
	s.mu.Lock()
	if s.warned == msg {
		s.mu.Unlock()
		return
	}
	s.warned = msg
	if msg == "" {
		s.mu.Unlock()
		return
	}
	if !s.indexed {
		s.settingsNotes = append(s.settingsNotes, heldMessage{t, msg})
		s.mu.Unlock()
		s.log.Info("message to the user, once the memex is indexed", "text", msg)
		return
	}
	s.mu.Unlock()
	s.showMessage(t, msg)
}

// releaseSettingsNotes says what sayOfSettings held, after the indexing's
// last word; from then on it says them at once.
func (s *Server) releaseSettingsNotes() {
	s.mu.Lock()
	held := s.settingsNotes
	s.settingsNotes, s.indexed = nil, true
	s.mu.Unlock()
	for _, m := range held {
		s.showMessage(m.typ, m.msg)
	}
}

// addPrivacyTags makes the memex's privacy tags the ones in force plus
// extra, unless they already hold them all.
func (s *Server) addPrivacyTags(ctx context.Context, mx *memory.Memex, extra []string) {
	cur := mx.Snapshot().PrivacyTags()
	want := addTags(cur, extra)
	if slices.Equal(want, cur) {
		return
	}
	if _, err := mx.SetPrivacyTags(ctx, want); err != nil {
		s.log.Warn("the privacy tags could not be changed", "err", err)
	}
}
