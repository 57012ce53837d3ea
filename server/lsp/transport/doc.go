// Package transport is the language server's side of LSP's base protocol:
// Content-Length framing and JSON-RPC 2.0 message checking, as the
// go.lsp.dev/jsonrpc2 Stream the server's connection runs on.
//
// Invariant: whatever bytes arrive, Read returns only well-formed JSON-RPC
// messages, or the end of the input. Every malformed message is answered
// with a JSON-RPC error — -32700 (parse error) when its frame or its JSON
// cannot be read, -32600 (invalid request) when it is JSON but not a valid
// message — carrying the message's id when one can be read and null
// otherwise, logged without its content, and skipped; reading goes on with
// the next message. Memory is bounded: a header block is at most MaxHeader
// bytes, a body at most MaxMessage, and the buffer grows only as bytes
// actually arrive, never to a size a header merely states.
//
// It exists because jsonrpc2 v1 ends the connection on the first body it
// cannot decode, allocates whatever Content-Length states (up to 1 GiB)
// before reading it, reads header lines of any length, serves JSON-RPC
// batches (whose members it runs concurrently, out of LSP's order) and
// passes bodies whose params are not JSON.
//
// # What is answered how
//
//   - A header block that is not "Name: value" lines ending in a blank line,
//     has no Content-Length, or one that is not a decimal number within
//     MaxMessage, or is longer than MaxHeader: -32700, id null. Reading
//     resumes at the next "Content-Length:" in the input (what lay between
//     is skipped), since the length of what followed is unknown.
//   - A body that is not one JSON value: -32700, id null.
//   - JSON that is not an object (a number, a string, null): -32600, id null.
//   - A batch (an array): LSP sends one message at a time and the server
//     must apply notifications in order, so batches are not served: each
//     request in it is answered -32600 with its id, in one array (JSON-RPC
//     2.0 §6); an empty array is answered with one -32600, id null; its
//     notifications are dropped (and logged).
//   - An object that is not a valid request ("jsonrpc" not "2.0", "method"
//     not a string, an id that is neither a string nor an integer, "result"
//     or "error" beside "method"): -32600, with its id when that is a string
//     or a number (echoed as sent), null otherwise.
//   - A malformed response (no "method"): never answered — a response to a
//     response could loop between two peers. When its id is one the server
//     may be waiting on, the waiting call gets the error instead, so it
//     does not wait forever.
//
// Leading blank lines between messages are skipped; header lines may end in
// CRLF or LF; fields other than Content-Length are ignored.
package transport
