// Package actuate carries out actions the gates let through: one actuator
// per tool of DESIGN §6 — message, file_read, file_write, memory_edit,
// shell, http, send and eval.
//
// Invariant: an actuator does exactly the action it is given, inside the
// limits it enforces itself, whatever the gates said: writes land only
// inside the roots (confined by os.Root), never behind a buffer open in an
// editor; file_read, file_write and memory_edit never reach a protected
// place (flightplans.org and journal.org in any root, the data, config and
// runtime folders, the configuration file) by any spelling — symlink, "..",
// case, another hard link — checked again on the file or folder actually
// opened (package protect); http, send and
// eval run only with an Approval for that very action (a Flight Plan a human
// approved); shell and eval processes run in the sandbox (package sandbox:
// Landlock, seccomp, limits, a scrubbed environment; with the setting
// "required" they do not run where it cannot be had), with a working folder
// inside the roots, a timeout that kills everything they started, and an
// output cap, and a guard that reports every change of a protected file
// they made — undoing flightplans.org's — and takes none of the server's
// own (its journal's appends, OwnWrites) for theirs, looking in bounded
// memory whatever the files' size (guard.go); every output is scrubbed of vault secrets and passes the
// privacy filter (package redact) before it leaves. A failure is an error
// naming the action at fault; no input panics.
package actuate
