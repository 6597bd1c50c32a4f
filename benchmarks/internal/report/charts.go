package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Charts draws the report's PNG charts into dir, each file named
// prefix-<chart>.png, and returns the paths written.
func (r *Report) Charts(dir, prefix string) ([]string, error) {
	var written []string
	save := func(p *plot.Plot, name string, w vg.Length) error {
		path := filepath.Join(dir, prefix+"-"+name+".png")
		if err := p.Save(w, 10*vg.Centimeter, path); err != nil {
			return fmt.Errorf("chart %s: %w", name, err)
		}
		written = append(written, path)
		return nil
	}
	names := r.serverNames()
	for _, pipe := range []int{1, 32} {
		var keys []testKey
		for _, k := range keysOf(r.Matrix) {
			if k.pipeline == pipe {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("redis-benchmark throughput, pipeline %d, 50 clients", pipe)
		p.Y.Label.Text = "k requests/s (median)"
		var labels []string
		for _, k := range keys {
			labels = append(labels, k.test)
		}
		series := map[string]plotter.Values{}
		for _, n := range names {
			for _, k := range keys {
				b, _ := find(r.Matrix, n, k)
				series[n] = append(series[n], Median(b.RPS)/1000) // 0 for n/a
			}
		}
		if err := bars(p, names, labels, series); err != nil {
			return written, err
		}
		if err := save(p, fmt.Sprintf("throughput-p%d", pipe), 24*vg.Centimeter); err != nil {
			return written, err
		}
	}

	if len(r.Latency) > 0 {
		p := plot.New()
		p.Title.Text = "Latency by percentile, -P 1 -c 500 (last run)"
		p.X.Label.Text = "percentile"
		p.Y.Label.Text = "ms"
		p.X.Tick.Marker = nines{}
		i := 0
		for _, b := range r.Latency {
			var xy plotter.XYs
			for _, d := range b.Dist {
				if d.Pct < 100 {
					xy = append(xy, plotter.XY{X: ninesX(d.Pct), Y: d.Ms})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return written, err
			}
			l.Color = plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i)
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(b.Server+" "+b.Test, l)
			i++
		}
		p.Legend.Top, p.Legend.Left = true, true
		if i > 0 {
			if err := save(p, "latency", 16*vg.Centimeter); err != nil {
				return written, err
			}
		}
	}

	if len(r.Memory) > 0 {
		p := plot.New()
		p.Title.Text = "Memory per key"
		p.Y.Label.Text = "bytes per key (RSS delta)"
		var labels []string
		series := map[string]plotter.Values{}
		for _, m := range r.Memory {
			label := memLabel(m)
			if !slices.Contains(labels, label) {
				labels = append(labels, label)
			}
		}
		for _, n := range names {
			for _, label := range labels {
				v := 0.0
				for _, m := range r.Memory {
					if m.Server == n && memLabel(m) == label {
						v = m.RSSPerKey
					}
				}
				series[n] = append(series[n], v)
			}
		}
		if err := bars(p, names, labels, series); err != nil {
			return written, err
		}
		if err := save(p, "memory", 16*vg.Centimeter); err != nil {
			return written, err
		}
	}

	if len(r.Scaling) > 0 {
		p := plot.New()
		p.Title.Text = "radish scaling, -P 32"
		p.X.Label.Text = "shards"
		p.Y.Label.Text = "k requests/s (median)"
		lines := map[string]plotter.XYs{}
		var tests []string
		for _, b := range r.Scaling {
			if !slices.Contains(tests, b.Test) {
				tests = append(tests, b.Test)
			}
			if len(b.RPS) > 0 {
				lines[b.Test] = append(lines[b.Test], plotter.XY{X: float64(b.Shards), Y: Median(b.RPS) / 1000})
			}
		}
		for i, t := range tests {
			if len(lines[t]) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(lines[t])
			if err != nil {
				return written, err
			}
			l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
			p.Add(l, pts)
			p.Legend.Add(t, l, pts)
		}
		var ticks []plot.Tick
		for _, b := range r.Scaling {
			if len(ticks) == 0 || ticks[len(ticks)-1].Value != float64(b.Shards) {
				ticks = append(ticks, plot.Tick{Value: float64(b.Shards), Label: fmt.Sprint(b.Shards)})
			}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.Legend.Top = false // bottom right, below the curves
		p.Y.Min = 0
		if err := save(p, "scaling", 16*vg.Centimeter); err != nil {
			return written, err
		}
	}

	if len(r.Curve) > 0 {
		path := filepath.Join(dir, prefix+"-curve.png")
		if err := r.curveChart(path); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// bars adds one bar group per label, one bar per server, to p.
func bars(p *plot.Plot, names, labels []string, series map[string]plotter.Values) error {
	w := vg.Points(60 / float64(max(len(names), 1)))
	top := 0.0
	for i, n := range names {
		for _, v := range series[n] {
			top = max(top, v)
		}
		b, err := plotter.NewBarChart(series[n], w)
		if err != nil {
			return err
		}
		b.LineStyle.Width = 0
		b.Color = plotutil.Color(i)
		b.Offset = w * vg.Length(float64(i)-float64(len(names)-1)/2)
		p.Add(b)
		p.Legend.Add(n, b)
	}
	p.Legend.Top = true
	p.NominalX(labels...)
	p.Y.Min = 0
	p.Y.Max = top * (1.1 + 0.08*float64(len(names))) // room for the legend above the bars
	return nil
}

// ninesX maps a percentile to "number of nines" so that 90, 99, 99.9 are
// evenly spaced: x = -log10(1 - p/100).
func ninesX(pct float64) float64 { return -math.Log10(1 - pct/100) }

// nines labels a ninesX axis with percentiles.
type nines struct{}

func (nines) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for _, p := range []float64{0, 50, 90, 99, 99.9, 99.99, 99.999} {
		if x := ninesX(p); x >= min && x <= max {
			ts = append(ts, plot.Tick{Value: x, Label: fmt.Sprint(p)})
		}
	}
	return ts
}

func memLabel(m Memory) string {
	if m.Keys%1_000_000 == 0 {
		return fmt.Sprintf("%s %dM", m.Workload, m.Keys/1_000_000)
	}
	return fmt.Sprintf("%s %dk", m.Workload, m.Keys/1000)
}
