package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/radish-kv/radish/benchmarks/internal/model"
)

// Point is one point of the scaling curve: one server configuration
// (Kind radish with Threads shards, valkey with Threads io-threads, redis),
// one test (GET, SET, MIX: SetPct percent SETs) at one pipeline depth, run
// by the Go load generator on ClientCPUs (ClientCores of them); one value
// per run. ServerUs and ClientUs are CPU µs per request of the server and
// of the load generator.
type Point struct {
	Server      string    `json:"server"` // radish-4, valkey-2, redis
	Kind        string    `json:"kind"`
	Threads     int       `json:"threads"`
	Test        string    `json:"test"`
	SetPct      int       `json:"set_pct"`
	Pipeline    int       `json:"pipeline"`
	Conns       int       `json:"conns"`
	ServerCPUs  string    `json:"server_cpus"`
	ClientCPUs  string    `json:"client_cpus"`
	ClientCores int       `json:"client_cores"`
	Seconds     float64   `json:"seconds"` // length of each run
	RPS         []float64 `json:"rps"`
	ServerUs    []float64 `json:"server_cpu_us_per_req"`
	ClientUs    []float64 `json:"client_cpu_us_per_req"`
	Err         string    `json:"error,omitempty"`
}

// prediction returns the model's prediction for a radish point.
func (r *Report) prediction(p Point) (model.Prediction, bool) {
	if p.Kind != "radish" {
		return model.Prediction{}, false
	}
	for _, pr := range r.Predicted {
		if pr.Test == p.Test && pr.Pipeline == p.Pipeline && pr.Shards == p.Threads {
			return pr, true
		}
	}
	return model.Prediction{}, false
}

// curveMarkdown writes the scaling curve's table.
func (r *Report) curveMarkdown(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	c0 := r.Curve[0]
	p("\n## Scaling curve: the Go load generator on CPUs %s, 1M keys (DEBUG POPULATE), uniformly random, %.1f s per run\n\n",
		c0.ClientCPUs, c0.Seconds)
	p("Threads are radish's shards, valkey's io-threads. Server and client CPU are µs per request (utime+stime of the process); busy is the share of the server's threads' or the client's CPUs that this CPU time fills at the median throughput. ")
	if r.Model != nil {
		p("Predicted is the model (benchmarks/internal/model) from the costs below, min–max; it is not a measurement.")
	}
	p("\n\n| server | threads | CPUs | test | pipeline | conns | k requests/s | vs 1 thread | server µs CPU/req | server busy | client µs CPU/req | client busy | predicted k requests/s |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	base := map[string]float64{}
	for _, c := range r.Curve {
		pred := ""
		if pr, ok := r.prediction(c); ok {
			pred = fmt.Sprintf("%.0f–%.0f", pr.RPSMin/1000, pr.RPSMax/1000)
			if pr.ClientBound {
				pred += " (client-bound)"
			}
		}
		if c.Err != "" || len(c.RPS) == 0 {
			p("| %s | %d | %s | %s | %d | %d | n/a | | | | | | %s |\n", c.Kind, c.Threads, c.ServerCPUs, c.Test, c.Pipeline, c.Conns, pred)
			continue
		}
		key := fmt.Sprintf("%s %s %d", c.Kind, c.Test, c.Pipeline)
		m := Median(c.RPS)
		if c.Threads == 1 {
			base[key] = m
		}
		p("| %s | %d | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", c.Kind, c.Threads, c.ServerCPUs, c.Test, c.Pipeline, c.Conns,
			statCell(c.RPS, 1e-3, "%.0f"), ratio(m, base[key]), statCell(c.ServerUs, 1, "%.2f"), busy(m, c.ServerUs, c.Threads),
			statCell(c.ClientUs, 1, "%.2f"), busy(m, c.ClientUs, c.ClientCores), pred)
	}
	if r.Model != nil {
		p("\nModel inputs (%s):\n\n| test | pipeline | local µs | hop µs |\n|---|---|---|---|\n", r.Model.Source)
		for _, c := range r.Model.Costs {
			p("| %s | %d | %.2f | %.2f |\n", c.Test, c.Pipeline, c.Local, c.Hop)
		}
	}
	if pr := r.Profile; pr != nil {
		p("\n### Where %s's CPU time goes: %s -P %d, %.1f s (perf record, perf report --no-children --sort symbol)\n\n```\n%s\n```\n",
			pr.Server, pr.Test, pr.Pipeline, pr.Seconds, strings.Join(pr.Lines, "\n"))
	}
	errs := map[string]bool{}
	for _, c := range r.Curve {
		if c.Err != "" && !errs[c.Server+c.Err] {
			if len(errs) == 0 {
				p("\n")
			}
			errs[c.Server+c.Err] = true
			p("- %s %s -P %d: %s\n", c.Server, c.Test, c.Pipeline, c.Err)
		}
	}
}

// busy is the share of cores that rps requests/s at the median of us µs
// of CPU each fill, as a percentage ("" when cores is unknown).
func busy(rps float64, us []float64, cores int) string {
	if cores < 1 || len(us) == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f%%", rps*Median(us)/1e6/float64(cores)*100)
}

// curveChart draws the scaling curve: one row per pipeline depth,
// throughput on the left, server CPU per request on the right, one line
// per server kind and test, the model's range dotted.
func (r *Report) curveChart(path string) error {
	var pipes []int
	for _, c := range r.Curve {
		if !slices.Contains(pipes, c.Pipeline) {
			pipes = append(pipes, c.Pipeline)
		}
	}
	slices.Sort(pipes)
	type series struct{ kind, test string }
	var order []series
	for _, c := range r.Curve {
		if s := (series{c.Kind, c.Test}); !slices.Contains(order, s) {
			order = append(order, s)
		}
	}
	var ticks []plot.Tick
	for _, c := range r.Curve {
		if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == float64(c.Threads) }) {
			ticks = append(ticks, plot.Tick{Value: float64(c.Threads), Label: fmt.Sprint(c.Threads)})
		}
	}
	plots := make([][]*plot.Plot, len(pipes))
	for row, pipe := range pipes {
		tput, cpu := plot.New(), plot.New()
		tput.Title.Text = fmt.Sprintf("throughput, -P %d (%s, %d cores)", pipe, r.CPU, r.Cores)
		tput.Y.Label.Text = "k requests/s (median)"
		cpu.Title.Text = fmt.Sprintf("server CPU per request, -P %d", pipe)
		cpu.Y.Label.Text = "µs (median)"
		for _, p := range []*plot.Plot{tput, cpu} {
			p.X.Label.Text = "shards / io-threads"
			p.X.Tick.Marker = plot.ConstantTicks(ticks)
			p.Y.Min = 0
			p.Legend.Top, p.Legend.Left = true, true
			p.Legend.TextStyle.Font.Size = vg.Points(8)
		}
		for _, s := range order {
			var rps, us, lo, hi plotter.XYs
			for _, c := range r.Curve {
				if c.Kind != s.kind || c.Test != s.test || c.Pipeline != pipe {
					continue
				}
				x := float64(c.Threads)
				if len(c.RPS) > 0 {
					rps = append(rps, plotter.XY{X: x, Y: Median(c.RPS) / 1000})
					us = append(us, plotter.XY{X: x, Y: Median(c.ServerUs)})
				}
				if pr, ok := r.prediction(c); ok {
					lo = append(lo, plotter.XY{X: x, Y: pr.RPSMin / 1000})
					hi = append(hi, plotter.XY{X: x, Y: pr.RPSMax / 1000})
				}
			}
			st := style{color: testIndex(s.test), shape: kindIndex(s.kind), dashes: kindDashes[kindIndex(s.kind)]}
			name := s.kind + " " + s.test
			for _, add := range []struct {
				p    *plot.Plot
				xy   plotter.XYs
				name string
				st   style
			}{
				{tput, rps, name, st}, {cpu, us, name, st},
				{tput, lo, name + " predicted min", style{color: st.color, shape: -1, dashes: predictedDashes}},
				{tput, hi, name + " predicted max", style{color: st.color, shape: -1, dashes: predictedDashes}},
			} {
				if err := addLine(add.p, add.xy, add.st, add.name); err != nil {
					return err
				}
			}
		}
		plots[row] = []*plot.Plot{tput, cpu}
	}
	img := vgimg.New(32*vg.Centimeter, vg.Length(len(pipes))*11*vg.Centimeter)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(pipes), Cols: 2, PadX: vg.Centimeter, PadY: vg.Centimeter,
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	cs := plot.Align(plots, tiles, dc)
	for row := range plots {
		for col := range plots[row] {
			plots[row][col].Draw(cs[row][col])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("chart %s: %w", filepath.Base(path), err)
	}
	return f.Close()
}

// style is how one series is drawn: color by test, points and dashes by
// server kind; shape -1 draws no points (the model's lines).
type style struct {
	color, shape int
	dashes       []vg.Length
}

var (
	kindDashes      = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}
	predictedDashes = []vg.Length{vg.Points(1), vg.Points(3)}
)

func testIndex(test string) int { return max(0, slices.Index([]string{"GET", "SET", "MIX"}, test)) }

func kindIndex(kind string) int {
	return max(0, slices.Index([]string{"radish", "valkey", "redis"}, kind))
}

// addLine adds xy in style st and names it in the legend; an empty xy
// adds nothing.
func addLine(p *plot.Plot, xy plotter.XYs, st style, name string) error {
	if len(xy) == 0 {
		return nil
	}
	l, pts, err := plotter.NewLinePoints(xy)
	if err != nil {
		return err
	}
	l.Color, l.Dashes = plotutil.Color(st.color), st.dashes
	if st.shape < 0 {
		p.Add(l)
		p.Legend.Add(name, l)
		return nil
	}
	pts.Color, pts.Shape = plotutil.Color(st.color), plotutil.Shape(st.shape)
	p.Add(l, pts)
	p.Legend.Add(name, l, pts)
	return nil
}
