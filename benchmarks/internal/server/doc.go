// Package server starts and stops the servers under test: radish-server,
// Debian's redis-server and peers (valkey-server, ...), each as its own
// process pinned with taskset, on a free loopback port, with persistence off.
//
// Nouns: a Spec says what to start (binary, kind, CPUs, shards); a Server is
// the running process with a client connection to it.
//
// It never measures workloads; it only reports what the process itself shows:
// INFO, resident memory (/proc/<pid>/statm) and CPU time (/proc/<pid>/stat).
// A Server it started is always stopped by Stop, which waits for the process.
package server
