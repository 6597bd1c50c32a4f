// Package report holds the results of one harness run and renders them: the
// JSON file (the record), a Markdown table (what people read) and PNG charts
// drawn with gonum.org/v1/plot.
//
// Nouns: a Report is one harness run on one machine; a Bench is one
// redis-benchmark configuration on one server with one value per run; a
// Point is one point of the scaling curve (server configuration, test,
// pipeline depth; one value per run), drawn beside the model's Predicted
// range; a Stat is the median and range of those values.
//
// It never runs benchmarks. Every number in a table or chart is derived from
// the per-run values stored in the Report, so the JSON alone can redraw them.
package report
