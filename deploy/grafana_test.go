package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dashboard is the part of Grafana's dashboard schema (schemaVersion 39)
// the dashboard uses; decoding is strict, so a misspelt field fails.
type dashboard struct {
	UID           string   `json:"uid"`
	Title         string   `json:"title"`
	Tags          []string `json:"tags"`
	SchemaVersion int      `json:"schemaVersion"`
	Version       int      `json:"version"`
	Editable      bool     `json:"editable"`
	GraphTooltip  int      `json:"graphTooltip"`
	Time          struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"time"`
	Refresh    string `json:"refresh"`
	Timezone   string `json:"timezone"`
	Templating struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Label      string          `json:"label"`
			Query      json.RawMessage `json:"query"`
			Datasource *datasource     `json:"datasource"`
			Definition string          `json:"definition"`
			Refresh    int             `json:"refresh"`
			IncludeAll bool            `json:"includeAll"`
			Multi      bool            `json:"multi"`
			AllValue   string          `json:"allValue"`
			Current    json.RawMessage `json:"current"`
			Sort       int             `json:"sort"`
			Hide       int             `json:"hide"`
		} `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []json.RawMessage `json:"list"`
	} `json:"annotations"`
	Panels []struct {
		ID          int        `json:"id"`
		Type        string     `json:"type"`
		Title       string     `json:"title"`
		Description string     `json:"description"`
		Datasource  datasource `json:"datasource"`
		GridPos     struct {
			X int `json:"x"`
			Y int `json:"y"`
			W int `json:"w"`
			H int `json:"h"`
		} `json:"gridPos"`
		FieldConfig struct {
			Defaults struct {
				Unit string `json:"unit"`
			} `json:"defaults"`
			Overrides []json.RawMessage `json:"overrides"`
		} `json:"fieldConfig"`
		Options json.RawMessage `json:"options"`
		Targets []struct {
			RefID        string     `json:"refId"`
			Expr         string     `json:"expr"`
			LegendFormat string     `json:"legendFormat"`
			Datasource   datasource `json:"datasource"`
		} `json:"targets"`
	} `json:"panels"`
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// TestGrafanaDashboard checks deploy/grafana/radish.json: it decodes
// strictly into the dashboard schema; panels have unique ids, fit the
// 24-column grid without overlapping, and use the dashboard's data source
// variable; every PromQL expression parses (promtool check rules, with
// Grafana's variables replaced) and names only metrics a running server
// exports.
func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("grafana/radish.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatal("radish.json:", err)
	}
	if d.UID == "" || d.Title == "" || d.SchemaVersion < 36 || len(d.Panels) == 0 {
		t.Fatalf("uid %q, title %q, schemaVersion %d, %d panels", d.UID, d.Title, d.SchemaVersion, len(d.Panels))
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	type cell struct{ x, y int }
	used := map[cell]int{}
	ids := map[int]bool{}
	var exprs []string
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		g := p.GridPos
		if g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v outside the 24-column grid", p.Title, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if o, ok := used[cell{x, y}]; ok {
					t.Fatalf("panels %d and %d overlap", o, p.ID)
				}
				used[cell{x, y}] = p.ID
			}
		}
		if p.Type != "timeseries" && p.Type != "stat" {
			t.Errorf("panel %q: type %q", p.Title, p.Type)
		}
		refs := map[string]bool{}
		for _, tg := range append([]datasource{p.Datasource}, func() (ds []datasource) {
			for _, tg := range p.Targets {
				ds = append(ds, tg.Datasource)
			}
			return
		}()...) {
			if tg.Type != "prometheus" || !vars[strings.Trim(tg.UID, "${}")] {
				t.Errorf("panel %q: data source %+v is not the dashboard's variable", p.Title, tg)
			}
		}
		for _, tg := range p.Targets {
			if refs[tg.RefID] || tg.RefID == "" || tg.Expr == "" {
				t.Errorf("panel %q: target %q", p.Title, tg.RefID)
			}
			refs[tg.RefID] = true
			exprs = append(exprs, tg.Expr)
		}
	}
	// Grafana's variables, as Grafana would substitute them.
	subst := strings.NewReplacer("$__rate_interval", "1m", "$job", ".*", "$instance", ".*")
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, e := range exprs {
		fmt.Fprintf(&rules, "      - record: dashboard:expr%d\n        expr: %s\n", i, strconv.Quote(subst.Replace(e)))
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is needed (apt-get install prometheus):", err)
	}
	rf := filepath.Join(t.TempDir(), "rules.yml")
	os.WriteFile(rf, []byte(rules.String()), 0o644)
	if out, err := exec.Command(promtool, "check", "rules", rf).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	exported := scrapeNames(t)
	name := regexp.MustCompile(`\b(radish|process|go)_[a-z_]+\b`)
	for _, e := range exprs {
		for _, n := range name.FindAllString(e, -1) {
			if !exported[n] {
				t.Errorf("%q: the server exports no %s", e, n)
			}
		}
	}
}

// scrapeNames starts radish-server with a metrics port and an AOF, writes
// a key with a TTL so that every series exists, and returns the metric
// names it exports.
func scrapeNames(t *testing.T) map[string]bool {
	t.Helper()
	bin := binaries(t)["/usr/local/bin/radish-server"]
	port, mport := freePort(t), freePort(t)
	srv := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--metrics-port", strconv.Itoa(mport),
		"--dir", t.TempDir(), "--logfile", "", "--appendonly", "yes")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	var c net.Conn
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err = net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	fmt.Fprint(c, "SET k v EX 100\r\n")
	buf := make([]byte, 64)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	c.Read(buf)
	c.Close()
	names := map[string]bool{}
	for deadline := time.Now().Add(10 * time.Second); !names["radish_command_calls_total"]; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the metrics endpoint never showed a command call")
		}
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(mport) + "/metrics")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(string(body), "\n") {
			if line == "" || line[0] == '#' {
				continue
			}
			if i := strings.IndexAny(line, "{ "); i > 0 {
				names[line[:i]] = true
			}
		}
	}
	return names
}
