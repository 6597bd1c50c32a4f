// Package parse reads the text that benchmark tools and servers print:
// redis-benchmark's --csv rows and its plain-text report (latency by
// percentile), go-ycsb's final measurement lines, and INFO replies.
//
// Nouns: a Row is one redis-benchmark test; a Report is one plain-text
// redis-benchmark test with its percentile table; a YCSB is one go-ycsb run;
// Info is an INFO reply as a field map.
//
// It never runs anything: callers pass the captured output. Every parser is
// tested against output captured from the real tools (testdata/).
package parse
