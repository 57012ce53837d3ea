// Package chat keeps conversations as Org notes (DESIGN §13): one file per
// conversation, chats/YYYY-MM-DD-<slug>.org under the first root, whose
// #+title: is the first question and whose level-1 headlines are its
// turns — the question as the title (the whole of it in a quote block when
// the title cannot hold it), :ASKED:, :MODEL:, :TOKENS_IN:, :TOKENS_OUT:
// and :FROM: as properties, the answer as the body, what the turn did as a
// list after it. Parse reads such a file back with orgast; History turns
// its turns into a model's prior messages within a token budget, counted
// with memory/foveal's one counter, oldest dropped first, each action as a
// tool call and its result; a Store makes new conversations, appends turns
// and serialises the questions asked into one conversation.
//
// Invariant: a turn is appended whole or not at all — through the editor
// when the file is open, else by an atomic write over exactly the text it
// was read as — and Parse reads back every turn Render wrote, field for
// field, whatever the question, answer or results hold (no text of theirs
// adds structure to the file). Within one Store and across processes that
// share the lock folder, the holder of a conversation's Lock is the only
// one that appends to it. History never exceeds its budget, and keeps the
// newest turns that fit.
package chat
