// Package providers talks to language models and embedding models: Ollama's
// native API, any OpenAI-compatible server (llama.cpp, vLLM, LM Studio,
// OpenRouter, OpenAI), Anthropic's Messages API, and a replay provider that
// answers from a recorded transcript. It streams answers as events, assembles
// tool calls from their fragments, and runs providers as a cascade with a
// model selector and an optional consensus mode.
//
// Invariant: a key never leaves this package except in the one HTTP header
// its API expects — it is never logged, never put in an error, never echoed
// back from a server's error body (those are redacted) — and providers knows
// nothing of Org, the memex or the gates: it moves requests and answers, it
// never decides what an answer means.
//
// # Configuration
//
// PASSEPARTOUT_PROVIDERS is the cascade, comma-separated entries
//
//	kind:model[@base_url][#env:VAR | #vault:ENTRY]
//	replay:FILE
//
// where kind is ollama, openai (any OpenAI-compatible server) or anthropic.
// Without @base_url each kind uses its API's own default
// (http://127.0.0.1:11434, https://api.openai.com/v1,
// https://api.anthropic.com). The #env: or #vault: suffix names where the
// key comes from; without it openai reads OPENAI_API_KEY and anthropic
// ANTHROPIC_API_KEY (the vault's entry of that name first, when a vault is
// given). Model names may hold colons (ollama:qwen2.5:0.5b); the base URL
// starts at the first "@http://" or "@https://". A replay FILE is read
// relative to the working directory and may hold anything but a comma.
//
// The same settings live in [Config], whose JSON form is the "providers"
// part of the config file. [Config.ApplyEnv] lays the environment over it.
//
// # The cascade
//
// [Cascade.Stream] tries the selected providers in order. A provider that
// fails before it has produced any output — an error, a timeout, a 5xx, a
// 429 whose Retry-After is beyond the cap, a stream cut short — is logged
// in one line (provider and reason) and the next one is tried. Once output
// has reached the caller the answer belongs to that provider: a later
// failure is the caller's error, never a silent retry elsewhere.
//
// Every attempt is bounded by Timeouts: connect, first output (a model that
// loads or never answers), stall (silence once the answer has started) and
// total. Cancelling the context, or closing a Stream, closes the HTTP
// connection at once.
//
// # Replay transcripts
//
// A replay file is JSON lines; see [ReplayEntry] for the format.
package providers
