// Package sandbox confines the processes that shell and eval actions
// start (DESIGN §12): the gates predict what a command does, the sandbox
// makes the kernel hold it to that.
//
// Every command runs through a helper: the program re-executes itself with
// a hidden first argument (HelperArg) — ahead of need, so that its start-up
// is not on the action's path — and the helper, a fresh process, receives
// the command with a Landlock ruleset the server built for it, joins a pids
// cgroup, lowers its resource limits, drops every capability, restricts
// itself with Landlock and a seccomp filter, and only then starts the
// command as its child. The server that asked is never restricted. A
// program that wants the sandbox calls Main first thing in main (and a
// test binary first thing in TestMain).
//
// What a confined command may do:
//   - write only under the memex roots and its own temporary folder,
//     never the protected places (flightplans.org and journal.org of every
//     root, the data, config and runtime folders, $HOME's dot-entries when
//     a root holds $HOME) nor any entry of the roots that
//     internal/protname's table names — the gates' one list: .envrc,
//     .dir-locals.el, .nvim.lua, .husky, the hook managers' files, a
//     repository's .git/hooks and .git/config, at any depth. Where the
//     kernel allows the helper a mount namespace of its own, each of those
//     entries (a .git whole) is bound read-only onto itself there before
//     Landlock, and the folders above them are writable like any other
//     (mountns_linux.go); otherwise a new entry cannot be made in a folder
//     that holds a protected place (Landlock only allows, and a right on a
//     folder holds for all of it: such a folder gets no write right — its
//     entries get it one by one). Either way a root's top level holding
//     flightplans.org takes no new entry, and a protected name made anew
//     elsewhere is moved aside
//     as soon as inotify reports it, or else when the command has ended,
//     and the run fails saying so (in a
//     repository the command made: its hooks, a config with a setting
//     that is not plain, a commondir);
//   - read the roots (minus those places and the files holding private
//     notes, with their editor backups), the system's program and library
//     folders, an allow-list of /etc, a few devices and its temporary
//     folder: nothing else of $HOME;
//   - open no socket at all (seccomp) and no TCP connection (Landlock
//     ABI ≥ 4), signal or reach no process outside its sandbox (ABI ≥ 6),
//     use no io_uring and no kernel keyring, keep no capability, trace,
//     read the memory of or kill no process outside its own (its helper
//     is not dumpable, and runs it from a thread no signal of the
//     command's can reach), and inherit no descriptor but its standard
//     three;
//   - spend a bounded CPU time, file size, data memory (each process's,
//     and all of them together where a memory cgroup can be made), number
//     of processes, and share of the disk (bytes and inodes, read while it
//     runs), and end
//     at its wall time, with everything it left running.
//
// Older kernels enforce less; Status.Gaps names what a given ABI cannot
// stop. The mode (Required, BestEffort, Off) decides what happens where
// Landlock is missing.
//
// Invariant: a command runs confined by every rule the kernel supports, or
// (mode Required) not at all; the process that asked is never restricted;
// the command's environment holds only the allow-listed variables, and its
// descriptors only its standard three; it cannot kill, trace or read the
// memory of its helper; the server, acting unconfined on what a command
// made (moving a protected name aside), follows no symlink on the way.
package sandbox
