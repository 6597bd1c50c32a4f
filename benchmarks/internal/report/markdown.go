package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/radish-kv/radish/benchmarks/internal/parse"
)

// Markdown writes the report as Markdown tables. Each cell is the median of
// the runs and, where there were several, the range in parentheses; "n/a"
// marks a test a server could not run.
func (r *Report) Markdown(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Radish benchmarks %s (%s)\n\n", r.Date, r.Host)
	p("- machine: %s, %d cores, kernel %s\n", r.CPU, r.Cores, r.Kernel)
	p("- %s; %d runs per measurement, servers alternated run by run", r.Pinning, r.Runs)
	if r.Quick {
		p("; QUICK mode (small counts)")
	}
	p("\n")
	for _, s := range r.Servers {
		p("- %s: %s (`%s %s`)\n", s.Name, s.Version, s.Bin, strings.Join(quoteEmpty(s.Args), " "))
	}
	names := r.serverNames()

	if len(r.Matrix) > 0 {
		p("\n## Throughput, redis-benchmark, 50 clients, 1M random keys (k requests/s; MSET sets 10 keys)\n\n")
		head := "| test | pipeline |"
		for _, n := range names {
			head += " " + n + " |"
		}
		if len(names) > 1 {
			head += fmt.Sprintf(" %s/%s |", names[0], names[1])
		}
		p("%s\n%s\n", head, sep(head))
		for _, k := range keysOf(r.Matrix) {
			p("| %s | %d |", k.test, k.pipeline)
			var med []float64
			for _, n := range names {
				b, ok := find(r.Matrix, n, k)
				cell, m := "n/a", 0.0
				if ok && b.Err == "" && len(b.RPS) > 0 {
					cell, m = statCell(b.RPS, 1e-3, "%.0f"), Median(b.RPS)
				}
				med = append(med, m)
				p(" %s |", cell)
			}
			if len(names) > 1 {
				p(" %s |", ratio(med[0], med[1]))
			}
			p("\n")
		}
		notes(w, r.Matrix)
	}

	if len(r.Latency) > 0 {
		p("\n## Latency under load, -P 1 -c 500 (ms)\n\n")
		p("| server | test | k requests/s | p50 | p99 | p99.9 |\n|---|---|---|---|---|---|\n")
		for _, b := range r.Latency {
			if b.Err != "" {
				p("| %s | %s | n/a | n/a | n/a | n/a |\n", b.Server, b.Test)
				continue
			}
			p("| %s | %s | %s | %s | %s | %s |\n", b.Server, b.Test, statCell(b.RPS, 1e-3, "%.0f"),
				statCell(b.P50, 1, "%.3f"), statCell(b.P99, 1, "%.3f"), statCell(b.P999, 1, "%.3f"))
		}
	}

	if len(r.YCSB) > 0 {
		y0 := r.YCSB[0]
		p("\n## YCSB workload A (50/50 read/update, zipfian), %d records, %d operations, %d threads, %s values\n\n",
			y0.Records, y0.Ops, y0.Threads, y0.Datatype)
		p("| server | ops/s | op | avg µs | p95 µs | p99 µs | p99.9 µs | p99.99 µs | server CPU µs/op |\n")
		p("|---|---|---|---|---|---|---|---|---|\n")
		for _, y := range r.YCSB {
			if y.Err != "" || len(y.Runs) == 0 {
				p("| %s | n/a | | | | | | | n/a |\n", y.Server)
				continue
			}
			var tput []float64
			for _, run := range y.Runs {
				tput = append(tput, run.Throughput)
			}
			for i, op := range []string{"READ", "UPDATE"} {
				col := func(f func(o parse.YCSBOp) float64) string {
					var v []float64
					for _, run := range y.Runs {
						if o, ok := run.Ops[op]; ok {
							v = append(v, f(o))
						}
					}
					if len(v) == 0 {
						return "n/a"
					}
					return statCell(v, 1, "%.0f")
				}
				first, cpu := "", ""
				if i == 0 {
					first, cpu = statCell(tput, 1, "%.0f"), statCell(y.CPUPerOpUs, 1, "%.2f")
				}
				p("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", y.Server, first, op,
					col(func(o parse.YCSBOp) float64 { return o.Avg }), col(func(o parse.YCSBOp) float64 { return o.P95 }),
					col(func(o parse.YCSBOp) float64 { return o.P99 }), col(func(o parse.YCSBOp) float64 { return o.P999 }),
					col(func(o parse.YCSBOp) float64 { return o.P9999 }), cpu)
			}
		}
	}

	if len(r.Memory) > 0 {
		p("\n## Memory (fresh server per data set)\n\n")
		p("| server | data set | keys | used_memory bytes/key | RSS bytes/key |\n|---|---|---|---|---|\n")
		for _, m := range r.Memory {
			if m.Err != "" {
				p("| %s | %s | %d | n/a | n/a |\n", m.Server, m.Workload, m.Keys)
				continue
			}
			p("| %s | %s | %d | %.1f | %.1f |\n", m.Server, m.Workload, m.Keys, m.UsedPerKey, m.RSSPerKey)
		}
	}

	if len(r.Keys) > 0 {
		p("\n## KEYS and SCAN MATCH over 1M keys, pattern matching 0.1%% (ms)\n\n")
		p("| server | pattern | matched | KEYS | full SCAN MATCH (COUNT 1000) | SCAN calls |\n|---|---|---|---|---|---|\n")
		for _, k := range r.Keys {
			if k.Err != "" {
				p("| %s | %s | n/a | n/a | n/a | n/a |\n", k.Server, k.Pattern)
				continue
			}
			p("| %s | `%s` | %d | %s | %s | %d |\n", k.Server, k.Pattern, k.Matched,
				statCell(k.KeysMs, 1, "%.1f"), statCell(k.ScanMs, 1, "%.1f"), k.ScanCalls)
		}
	}

	if len(r.Scaling) > 0 {
		p("\n## Scaling: radish --shards N, -P 32 (k requests/s)\n\n")
		p("| shards | clients | test | k requests/s | vs 1 shard |\n|---|---|---|---|---|\n")
		base := map[string]float64{}
		for _, b := range r.Scaling {
			if b.Err != "" || len(b.RPS) == 0 {
				p("| %d | %d | %s | n/a | |\n", b.Shards, b.Clients, b.Test)
				continue
			}
			m := Median(b.RPS)
			if b.Shards == 1 {
				base[b.Test] = m
			}
			p("| %d | %d | %s | %s | %s |\n", b.Shards, b.Clients, b.Test, statCell(b.RPS, 1e-3, "%.0f"), ratio(m, base[b.Test]))
		}
	}

	if len(r.Curve) > 0 {
		r.curveMarkdown(w)
	}

	if len(r.Problems) > 0 {
		p("\n## Problems\n\n")
		for _, s := range r.Problems {
			p("- %s\n", strings.ReplaceAll(s, "\n", " "))
		}
	}
}

// notes lists why cells are n/a, once per server and test.
func notes(w io.Writer, bs []Bench) {
	seen := map[string]bool{}
	for _, b := range bs {
		if k := b.Server + " " + b.Test; b.Err != "" && !seen[k] {
			if len(seen) == 0 {
				fmt.Fprint(w, "\nn/a means the server could not run the test:\n\n")
			}
			seen[k] = true
			fmt.Fprintf(w, "- %s %s: %s\n", b.Server, b.Test, strings.TrimSpace(b.Err))
		}
	}
}

func statCell(v []float64, scale float64, format string) string {
	if len(v) == 0 {
		return "n/a"
	}
	s := Summarize(v)
	cell := fmt.Sprintf(format, s.Median*scale)
	if s.N > 1 {
		cell += fmt.Sprintf(" ("+format+"–"+format+")", s.Min*scale, s.Max*scale)
	}
	return cell
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func sep(head string) string {
	return strings.Repeat("|---", strings.Count(head, "|")-1) + "|"
}

func quoteEmpty(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" {
			out[i] = "''"
		}
	}
	return out
}

type testKey struct {
	test     string
	pipeline int
}

// keysOf lists the (test, pipeline) pairs of bs in first-seen order.
func keysOf(bs []Bench) []testKey {
	var keys []testKey
	seen := map[testKey]bool{}
	for _, b := range bs {
		k := testKey{b.Test, b.Pipeline}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

func find(bs []Bench, server string, k testKey) (Bench, bool) {
	for _, b := range bs {
		if b.Server == server && b.Test == k.test && b.Pipeline == k.pipeline {
			return b, true
		}
	}
	return Bench{}, false
}

func (r *Report) serverNames() []string {
	var names []string
	for _, s := range r.Servers {
		names = append(names, s.Name)
	}
	return names
}
