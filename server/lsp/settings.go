package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"pp-lsp/gates"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/agent"
	"pp-lsp/server/chat"
)

// Settings is the one schema of the editor's settings: the
// initializationOptions of initialize, and the section "passepartout" of
// workspace/configuration and workspace/didChangeConfiguration. Every
// field is optional; a later source overrides an earlier one field by
// field, and every setting that has an environment variable (DESIGN §11)
// overrides that variable for this server.
//
// Roots, DataDir, ConfigFile, Providers, Embedding*, Assistant and Sandbox
// are read once, when the memex is opened: give them in
// initializationOptions (the project's sources cannot set any of them but
// a stricter Sandbox, nor remove a privacy tag: projectSettings).
// PrivacyTags, Budget, SemanticThreshold and RescanSeconds take effect
// whenever they change.
type Settings struct {
	// Roots are the memex roots (absolute, or relative to the first
	// workspace folder; "~/" is the home folder). Default: the workspace
	// folders, else rootUri, else rootPath, else the server's working
	// directory.
	Roots []string `json:"roots,omitempty"`
	// PrivacyTags make a node private (default "@personal", "private").
	PrivacyTags []string `json:"privacyTags,omitempty"`
	// Budget is the context's token budget (CONTEXT_BUDGET, 4000).
	Budget int `json:"budget,omitempty"`
	// SemanticThreshold is the cosine a related node needs to enter the
	// context (CONTEXT_SEMANTIC_THRESHOLD, 0.75).
	SemanticThreshold float64 `json:"semanticThreshold,omitempty"`
	// DataDir holds the store, the vectors and the journal
	// (PASSEPARTOUT_DATA_DIR).
	DataDir string `json:"dataDir,omitempty"`
	// ConfigFile is the configuration file (default
	// $XDG_CONFIG_HOME/passepartout/config.json).
	ConfigFile string `json:"configFile,omitempty"`
	// Providers is the model cascade (PASSEPARTOUT_PROVIDERS).
	Providers string `json:"providers,omitempty"`
	// EmbeddingProvider, EmbeddingModel and EmbeddingBaseURL choose the
	// embedder (EMBEDDING_PROVIDER, EMBEDDING_MODEL, EMBEDDING_BASE_URL).
	EmbeddingProvider string `json:"embeddingProvider,omitempty"`
	EmbeddingModel    string `json:"embeddingModel,omitempty"`
	EmbeddingBaseURL  string `json:"embeddingBaseUrl,omitempty"`
	// Assistant is the assistant's name in the prompt (MEMEX_ASSISTANT).
	Assistant string `json:"assistant,omitempty"`
	// HeartbeatSeconds is the agent's heartbeat (HEARTBEAT_INTERVAL, 60).
	HeartbeatSeconds int `json:"heartbeatInterval,omitempty"`
	// RescanSeconds is how often the memex is compared with the disk when
	// the editor cannot watch files (default 5).
	RescanSeconds int `json:"rescanInterval,omitempty"`
	// MaxSymbols bounds a workspace/symbol answer (default 200).
	MaxSymbols int `json:"maxSymbols,omitempty"`
	// Sandbox confines shell and eval actions: "required" (the default
	// where the kernel has Landlock), "best-effort" or "off". Unlike the
	// other settings it can only make PASSEPARTOUT_SANDBOX and the
	// configuration file stricter, never weaker: a project's settings are
	// within a hostile note's reach.
	Sandbox string `json:"sandbox,omitempty"`
	// NoteTemplate is what a note made by "Create a node for this link"
	// and passepartout.daily starts with; ${id}, ${title} and ${date}
	// are replaced (default orgfeat.DefaultNoteTemplate: a file-level
	// :ID: and the #+title:).
	NoteTemplate string `json:"noteTemplate,omitempty"`
	// ChatDir is the folder of conversations under the first root
	// (PASSEPARTOUT_CHAT_DIR, "chats"); ChatBudget the tokens of earlier
	// turns sent with a follow-up (CHAT_BUDGET, 2000). Read at start.
	ChatDir    string `json:"chatDir,omitempty"`
	ChatBudget int    `json:"chatBudget,omitempty"`
	// ApplyEditTimeoutSeconds bounds how long the server waits for the
	// editor to answer workspace/applyEdit — the time a user has to answer
	// its confirmation prompt (default 30).
	ApplyEditTimeoutSeconds int `json:"applyEditTimeout,omitempty"`
}

// projectSettings keeps, of settings that came from the project —
// workspace/configuration and didChangeConfiguration, which an editor may
// take from a file in the memex that anyone could have written (eglot
// applies eglot-workspace-configuration from .dir-locals.el without
// asking) — only those of projectKeeps, which cannot weaken the gates,
// send the notes elsewhere, reach the model's prompt, spend on the model
// or write into the user's files; ignored names the rest (in settingKeys'
// order). A setting added to Settings is ignored from a project until it
// is added there. Privacy tags only add to the tags in force (tags, kept
// apart from the result); the sandbox can only be made stricter, which
// Open sees to.
func projectSettings(s Settings) (kept Settings, tags []string, ignored []string) {
	b, err := json.Marshal(s)
	if err != nil {
		// A struct of strings and numbers always marshals; were it not
		// to, nothing of the project's is kept.
		return Settings{}, nil, nil
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(b, &set); err != nil {
		return Settings{}, nil, nil
	}
	keep := map[string]json.RawMessage{}
	for _, k := range settingKeys() {
		v, ok := set[k]
		switch {
		case !ok || k == "privacyTags":
		case slices.Contains(projectKeeps(), k):
			keep[k] = v
		default:
			ignored = append(ignored, k)
		}
	}
	b, err = json.Marshal(keep)
	if err == nil {
		err = json.Unmarshal(b, &kept)
	}
	if err != nil {
		return Settings{}, nil, ignored
	}
	return kept, s.PrivacyTags, ignored
}

// lowerOnly is p, a project's kept settings, with the budgets — what a
// question sends the model, and costs — no higher than those in force
// without it (cur's, else the environment's, else the defaults): a
// project may lower them, never raise them (its budget of 1,000,000 sent
// every question the whole outline of the memex).
func (p Settings) lowerOnly(cur Settings, getenv func(string) string) Settings {
	if p.Budget > 0 {
		p.Budget = min(p.Budget, cur.budget(getenv))
	}
	if p.ChatBudget > 0 {
		p.ChatBudget = min(p.ChatBudget, cur.chatBudget(getenv))
	}
	return p
}

// chatBudget is the chat budget: the setting, else CHAT_BUDGET, else
// chat.DefaultBudget.
func (s Settings) chatBudget(getenv func(string) string) int {
	if s.ChatBudget > 0 {
		return s.ChatBudget
	}
	if n, err := strconv.Atoi(strings.TrimSpace(getenv(agent.EnvChatBudget))); err == nil && n > 0 {
		return n
	}
	return chat.DefaultBudget
}

// projectKeeps are the settings a project's sources may set: how much
// context a question gets (no more than without it: lowerOnly), how often
// the disk is rescanned, how many symbols an answer lists, how long an
// edit waits for the user, and a stricter sandbox. Not the roots, the
// data dir, the configuration file, the model, the embedder (the gates'
// rules, where notes go), the assistant's name (it is part of the model's
// prompt), the heartbeat (how often skills run, and spend), the note
// template (text written into new notes: a skill, say) nor the
// conversations' folder (where the agent writes its own files, which the
// gates keep).
func projectKeeps() []string {
	return []string{"budget", "semanticThreshold", "rescanInterval", "maxSymbols", "sandbox", "chatBudget", "applyEditTimeout"}
}

// addTags is base with every tag of more it lacks (case-insensitively, as
// privacy tags compare), in order; base itself when nothing is added.
func addTags(base, more []string) []string {
	out := base
	for _, t := range more {
		if !slices.ContainsFunc(out, func(b string) bool { return strings.EqualFold(b, t) }) {
			out = append(slices.Clip(out), t)
		}
	}
	return out
}

// settingKeys are the JSON names of Settings, for the unknown-key warning.
func settingKeys() []string {
	return []string{
		"roots", "privacyTags", "budget", "semanticThreshold", "dataDir", "configFile", "providers",
		"embeddingProvider", "embeddingModel", "embeddingBaseUrl", "assistant", "heartbeatInterval",
		"rescanInterval", "maxSymbols", "sandbox", "noteTemplate", "chatDir", "chatBudget", "applyEditTimeout",
	}
}

// parseSettings reads one source of settings: a JSON object, null or
// nothing. A key it does not know is reported in unknown (a typo the user
// should hear about) and otherwise ignored; a value of the wrong type is
// an error naming the key.
func parseSettings(raw []byte) (s Settings, unknown []string, err error) {
	raw = bytes.TrimSpace(raw)
	if absent(raw) {
		return Settings{}, nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Settings{}, nil, fmt.Errorf("the passepartout settings are not a JSON object: %w", err)
	}
	keys := settingKeys()
	for k, v := range m {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
			continue
		}
		one, _ := json.Marshal(map[string]json.RawMessage{k: v})
		if err := json.Unmarshal(one, &s); err != nil {
			return Settings{}, nil, wrongType(k, err)
		}
	}
	slices.Sort(unknown)
	if err := s.check(); err != nil {
		return Settings{}, nil, err
	}
	return s, unknown, nil
}

// wrongType words a value of the wrong JSON type for the setting key:
// "the passepartout setting "budget" must be a number, not a string".
func wrongType(key string, err error) error {
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) {
		return fmt.Errorf("the passepartout setting %q has a value that does not fit: %w", key, err)
	}
	want := "a string"
	switch {
	case key == "roots" || key == "privacyTags":
		want = "a list of strings"
	case typ.Type.Kind() == reflect.Int:
		want = "a whole number"
	case typ.Type.Kind() == reflect.Float64:
		want = "a number"
	}
	got := typ.Value
	switch got {
	case "array":
		got = "a list"
	case "object":
		got = "an object"
	case "bool":
		got = "true or false"
	case "number", "string":
		got = "a " + got
	default: // "number 1.5": a number of the wrong kind
		got = strings.TrimPrefix(got, "number ")
	}
	return &settingError{msg: fmt.Sprintf("the passepartout setting %q must be %s, not %s", key, want, got), err: err}
}

// settingError is a sentence about a setting, with the decoder's error
// (which names Go's types) underneath.
type settingError struct {
	msg string
	err error
}

func (e *settingError) Error() string { return e.msg }
func (e *settingError) Unwrap() error { return e.err }

// check refuses values no setting can take.
func (s Settings) check() error {
	switch {
	case s.Budget < 0:
		return fmt.Errorf("the passepartout setting \"budget\" must be positive, not %d", s.Budget)
	case s.SemanticThreshold < 0 || s.SemanticThreshold > 1 || math.IsNaN(s.SemanticThreshold):
		return fmt.Errorf("the passepartout setting \"semanticThreshold\" must lie in [0, 1], not %v", s.SemanticThreshold)
	case s.HeartbeatSeconds < 0:
		return fmt.Errorf("the passepartout setting \"heartbeatInterval\" must be positive, not %d", s.HeartbeatSeconds)
	case s.RescanSeconds < 0:
		return fmt.Errorf("the passepartout setting \"rescanInterval\" must be positive, not %d", s.RescanSeconds)
	case s.ChatBudget < 0:
		return fmt.Errorf("the passepartout setting \"chatBudget\" must be positive, not %d", s.ChatBudget)
	case s.ApplyEditTimeoutSeconds < 0:
		return fmt.Errorf("the passepartout setting \"applyEditTimeout\" must be positive, not %d", s.ApplyEditTimeoutSeconds)
	case s.MaxSymbols < 0:
		return fmt.Errorf("the passepartout setting \"maxSymbols\" must be positive, not %d", s.MaxSymbols)
	}
	if _, err := sandbox.ParseMode(s.Sandbox); err != nil {
		return fmt.Errorf("the passepartout setting \"sandbox\": %w", err)
	}
	return nil
}

// over returns s with every field that o sets taken from o.
func (s Settings) over(o Settings) Settings {
	if o.Roots != nil {
		s.Roots = o.Roots
	}
	if o.PrivacyTags != nil {
		s.PrivacyTags = o.PrivacyTags
	}
	setIf(&s.Budget, o.Budget)
	setIf(&s.SemanticThreshold, o.SemanticThreshold)
	setIf(&s.DataDir, o.DataDir)
	setIf(&s.ConfigFile, o.ConfigFile)
	setIf(&s.Providers, o.Providers)
	setIf(&s.EmbeddingProvider, o.EmbeddingProvider)
	setIf(&s.EmbeddingModel, o.EmbeddingModel)
	setIf(&s.EmbeddingBaseURL, o.EmbeddingBaseURL)
	setIf(&s.Assistant, o.Assistant)
	setIf(&s.HeartbeatSeconds, o.HeartbeatSeconds)
	setIf(&s.RescanSeconds, o.RescanSeconds)
	setIf(&s.MaxSymbols, o.MaxSymbols)
	setIf(&s.Sandbox, o.Sandbox)
	setIf(&s.NoteTemplate, o.NoteTemplate)
	setIf(&s.ChatDir, o.ChatDir)
	setIf(&s.ChatBudget, o.ChatBudget)
	setIf(&s.ApplyEditTimeoutSeconds, o.ApplyEditTimeoutSeconds)
	return s
}

func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// env lays the settings over getenv: a setting with an environment
// variable wins over the process's value (DESIGN §11: the editor's
// settings are the last source).
func (s Settings) env(getenv func(string) string) func(string) string {
	over := map[string]string{}
	put := func(k, v string) {
		if v != "" {
			over[k] = v
		}
	}
	put("PASSEPARTOUT_PROVIDERS", s.Providers)
	put("PASSEPARTOUT_DATA_DIR", expandHome(s.DataDir, getenv))
	put("EMBEDDING_PROVIDER", s.EmbeddingProvider)
	put("EMBEDDING_MODEL", s.EmbeddingModel)
	put("EMBEDDING_BASE_URL", s.EmbeddingBaseURL)
	put("MEMEX_ASSISTANT", s.Assistant)
	if s.Budget > 0 {
		put("CONTEXT_BUDGET", strconv.Itoa(s.Budget))
	}
	if s.SemanticThreshold > 0 {
		put("CONTEXT_SEMANTIC_THRESHOLD", strconv.FormatFloat(s.SemanticThreshold, 'f', -1, 64))
	}
	if s.HeartbeatSeconds > 0 {
		put("HEARTBEAT_INTERVAL", strconv.Itoa(s.HeartbeatSeconds))
	}
	put(agent.EnvChatDir, s.ChatDir)
	if s.ChatBudget > 0 {
		put(agent.EnvChatBudget, strconv.Itoa(s.ChatBudget))
	}
	return func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		return getenv(k)
	}
}

// budget is the context budget: the setting, else CONTEXT_BUDGET, else 4000.
func (s Settings) budget(getenv func(string) string) int {
	if s.Budget > 0 {
		return s.Budget
	}
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("CONTEXT_BUDGET"))); err == nil && n > 0 {
		return n
	}
	return 4000
}

// threshold is the semantic threshold: the setting, else
// CONTEXT_SEMANTIC_THRESHOLD, else 0.75.
func (s Settings) threshold(getenv func(string) string) float64 {
	if s.SemanticThreshold > 0 {
		return s.SemanticThreshold
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(getenv("CONTEXT_SEMANTIC_THRESHOLD")), 64); err == nil && f > 0 && f <= 1 {
		return f
	}
	return 0.75
}

// rescan is the period of the disk comparison for clients that cannot watch.
func (s Settings) rescan() time.Duration {
	if s.RescanSeconds > 0 {
		return time.Duration(s.RescanSeconds) * time.Second
	}
	return 5 * time.Second
}

// applyEditTimeout bounds the wait for the editor's answer to
// workspace/applyEdit.
func (s Settings) applyEditTimeout() time.Duration {
	if s.ApplyEditTimeoutSeconds > 0 {
		return time.Duration(s.ApplyEditTimeoutSeconds) * time.Second
	}
	return 30 * time.Second
}

// maxSymbols bounds a workspace/symbol answer.
func (s Settings) maxSymbols() int {
	if s.MaxSymbols > 0 {
		return s.MaxSymbols
	}
	return 200
}

// resolveRoots makes the configured roots absolute: "~/" from HOME, a
// relative path against base (the first workspace folder).
func resolveRoots(roots []string, base string, getenv func(string) string) []string {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		r = expandHome(r, getenv)
		if !filepath.IsAbs(r) {
			r = filepath.Join(base, r)
		}
		r = filepath.Clean(r)
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// expandHome replaces a leading "~/" (or a lone "~") by the home folder
// of the world getenv describes (worldHome).
func expandHome(p string, getenv func(string) string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	return filepath.Join(worldHome(getenv), strings.TrimPrefix(p, "~"))
}

// worldHome is the home folder of the world getenv describes, by the one
// rule of gates.DefaultWorld (what the agent's world.Home, the memex's
// and the gates' home, is made by).
func worldHome(getenv func(string) string) string {
	return gates.DefaultWorld(getenv, nil).Home
}
