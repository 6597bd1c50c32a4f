// Package acl is Redis 7.0's access control lists: users, their rules, the
// permission check every command passes, and the ACL LOG.
//
// Nouns:
//   - A User has a name, on or off, passwords (SHA-256 hashes, hex, or
//     nopass) and one or more selectors: the root selector (the rules
//     written outside parentheses) and any "(...)" selectors after it.
//   - A selector is a set of permissions: a bitmap of the commands it
//     allows (one bit per command.Spec ID, subcommands included, plus the
//     bit +@all sets for commands that do not exist yet), first arguments
//     it allows of a command otherwise denied (+select|0), key patterns
//     each with read and/or write permission (~, %R~, %W~, %RW~, allkeys)
//     and channel patterns (&, allchannels).
//   - A rule is one word of the rule language (ACL SETUSER, user lines of
//     the config file and of the aclfile); User.apply applies one to a
//     user and fails with Redis's error text.
//   - A Snapshot is an immutable set of users. The Registry publishes a new
//     one for every change (SETUSER, DELUSER, LOAD, requirepass); readers
//     load it with one atomic read and never lock.
//   - The permission check (User.Check) says whether a user may run a
//     command with its arguments: some selector must allow the command,
//     every key the command's key specs find with the access its key-spec
//     flags state (ACCESS needs read; INSERT, DELETE and UPDATE need
//     write), and every channel of PUBLISH, SPUBLISH and the subscribe
//     commands.
//
// What is evaluated per command, and how cheaply: a user allowed every
// command, key and channel by one selector (the default user) is marked
// when its rules are applied, and the check is that one flag test. Any
// other user pays a bit test for the command, then one glob match per key
// and pattern at most (a user with 20 patterns: 20 matches per key in the
// worst case), with no allocation.
//
// The package never does I/O on the command path: the aclfile is read and
// written only by LoadFile and SaveFile (ACL LOAD, ACL SAVE, start). A
// published User is never modified: SETUSER changes a copy.
package acl
