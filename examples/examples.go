// Package examples embeds the example memex and the demo's recorded model, so
// that `pp-lsp demo` works from the binary alone, on any machine, without the
// source tree.
package examples

import "embed"

// Memex is examples/memex: a small hand-written memex (projects, custom TODO
// keywords, file-level and headline IDs, id links, one deliberately broken
// id link, and private subtrees). The demo copies it to a temporary
// directory before touching anything.
//
//go:embed memex
var Memex embed.FS

// DemoReplay is the replay transcript the demo's model answers from when no
// real provider is configured (PASSEPARTOUT_PROVIDERS).
//
//go:embed demo-replay.jsonl
var DemoReplay []byte
