package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/providers"
)

// MaxDepth is the deepest a signal may be: one deeper is dropped (DESIGN §7),
// the circuit breaker for actions whose output asks for more actions.
const MaxDepth = 10

// MaxTries is how many proposals one pass asks for: the first and two
// corrections after a gate's rejection.
const MaxTries = 3

// MaxText bounds a signal's text.
const MaxText = 64 << 10

// Source says where a signal came from.
type Source string

// The sources.
const (
	SourceLSP    Source = "lsp"
	SourceCLI    Source = "cli"
	SourceBridge Source = "bridge"
	// SourceMCP is a Model Context Protocol client: another agent.
	SourceMCP       Source = "mcp"
	SourceHeartbeat Source = "heartbeat"
	// SourceFeedback is an action's output coming back as the next signal.
	SourceFeedback Source = "feedback"
	// SourceFlightPlan is a Flight Plan a human approved.
	SourceFlightPlan Source = "flightplan"
)

// Sensor says what a signal carries.
type Sensor string

// The sensors.
const (
	// SensorUserInput is a question or a request from the user.
	SensorUserInput Sensor = "user-input"
	// SensorToolOutput is the output of an action, for the model to go on.
	SensorToolOutput Sensor = "tool-output"
	// SensorProposal is an action another agent proposes (Propose): no
	// model of ours reasons about it.
	SensorProposal Sensor = "proposal"
	// SensorHeartbeat is the periodic tick: maintenance, no model.
	SensorHeartbeat Sensor = "heartbeat"
)

// Signal is the one form every input takes inside the pipeline: a front
// end's question (AskRequest), an action's output going back to the model,
// the heartbeat's tick.
type Signal struct {
	Source    Source
	Session   string
	RequestID string
	Sensor    Sensor
	// Text is what the user asked (empty for tool output and heartbeats).
	Text string
	// File is where it was asked from (absolute after Perceive), Line the
	// 0-based line and Character the UTF-16 column (LSP) in it.
	File      string
	Line      int
	Character int
	// Depth counts the signals that led to this one.
	Depth int
	// Rejections are the previous tries of this pass, shown to the model.
	Rejections []Rejection
	// History is the conversation so far when an action's output comes
	// back: the question, the proposal, the output.
	History []providers.Message
	// Prior are a conversation's earlier turns (DESIGN §13), sent before
	// the question; Provider is the provider the conversation asks for
	// ("": the cascade's choice), and LocalOnly keeps a private
	// conversation to the providers marked local.
	Prior     []providers.Message
	Provider  string
	LocalOnly bool
	// FollowUp marks a question that continues a conversation: its answer
	// goes into the conversation's file, never into a note (DESIGN §13).
	FollowUp bool
	// Skill is the ID or title of the skill whose scheduled run this is
	// ("" for every other signal): its passes are background passes.
	Skill string
	// checked is the snapshot of the question's Recheck when it was made
	// before the pass (a conversation's, beginChat): the pass reads the
	// memex's current snapshot, which descends from it, instead of
	// checking the disk a second time. A signal made from another (an
	// action's output) has none: its pass checks the disk again.
	checked *memory.Snapshot
}

// Rejection is one denied proposal and the gates' verdict on it.
type Rejection struct {
	Try int
	// Proposal is what the model proposed: the action's canonical JSON,
	// or its raw text when it was no action at all.
	Proposal string
	Verdict  gates.Verdict
}

// Heartbeat is the tick's signal.
func Heartbeat() Signal { return Signal{Source: SourceHeartbeat, Sensor: SensorHeartbeat} }

// ErrDepth is returned by Perceive for a signal deeper than MaxDepth.
var ErrDepth = fmt.Errorf("the signal is deeper than %d and is dropped", MaxDepth)

// Perceive normalises a signal: the sensor and source filled in, a session
// id made, the file made absolute (relative to the first root) and clean,
// the line and depth never negative, the text trimmed and bounded. A user
// input without text, or text that is not UTF-8, is an error; a signal
// deeper than MaxDepth is ErrDepth.
func Perceive(sig Signal, roots []string) (Signal, error) {
	if sig.Depth > MaxDepth {
		return sig, ErrDepth
	}
	sig.Depth = max(sig.Depth, 0)
	if sig.Sensor == "" {
		sig.Sensor = SensorUserInput
	}
	if sig.Source == "" {
		sig.Source = SourceCLI
	}
	if sig.Session == "" {
		sig.Session = string(sig.Source) + "-" + uuid.NewString()[:8]
	}
	if !utf8.ValidString(sig.Text) {
		return sig, errors.New("the question is not valid UTF-8")
	}
	sig.Text = strings.TrimSpace(sig.Text)
	if len(sig.Text) > MaxText {
		return sig, fmt.Errorf("the question is %d bytes long; the limit is %d", len(sig.Text), MaxText)
	}
	if sig.Sensor == SensorUserInput && sig.Text == "" {
		return sig, errors.New("the question is empty")
	}
	if sig.File != "" {
		if strings.ContainsRune(sig.File, 0) {
			return sig, errors.New("the file name holds a NUL byte")
		}
		if !filepath.IsAbs(sig.File) && len(roots) > 0 {
			sig.File = filepath.Join(roots[0], sig.File)
		}
		sig.File = filepath.Clean(sig.File)
	}
	sig.Line, sig.Character = max(sig.Line, 0), max(sig.Character, 0)
	return sig, nil
}
