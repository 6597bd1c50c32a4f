package command

import (
	"strconv"
	"strings"
	"time"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// The server family: INFO, TIME, CONFIG, SHUTDOWN. They read process-wide
// state through Ctx.Server and run on the connection's own shard, but
// SHUTDOWN, which the shards' persistence runs (shard/snapshot.go).

func init() {
	register(
		&Spec{Name: "info", Arity: -1, Flags: Loading | Stale, ACL: []string{"dangerous"},
			Tips:    []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
			Handler: cmdInfo, Summary: "Get information and statistics about the server", Since: "1.0.0",
			Group: "server", Complexity: "O(1)"},
		&Spec{Name: "time", Arity: 1, Flags: Loading | Stale | Fast,
			Tips: []string{"nondeterministic_output"}, Handler: cmdTime, Summary: "Return the current server time",
			Since: "2.6.0", Group: "server", Complexity: "O(1)"},
		// SHUTDOWN's save spans the shards: their persistence runs it.
		&Spec{Name: "shutdown", Arity: -1, Flags: Admin | NoScript | Loading | Stale | NoMulti | AllowBusy,
			Route:   func([][]byte) Route { return Route{Persist: true} },
			Summary: "Synchronously save the dataset to disk and then shut down the server", Since: "1.0.0",
			Group: "server", Complexity: "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)"},
		&Spec{Name: "config", Arity: -2, Summary: "A container for server configuration commands",
			Since: "2.0.0", Group: "server", Complexity: "Depends on subcommand.",
			Sub: []*Spec{
				configSub("get", -3, cmdConfigGet, "Get the values of configuration parameters", nil),
				func() *Spec {
					s := configSub("set", -4, cmdConfigSet, "Set configuration parameters to the given values",
						[]string{"request_policy:all_nodes", "response_policy:all_succeeded"})
					s.Redact = redactConfigSet
					return s
				}(),
				configSub("resetstat", 2, cmdConfigResetStat, "Reset the stats returned by INFO", nil),
				configSub("rewrite", 2, cmdConfigRewrite, "Overwrite the configuration file", nil),
				{Name: "config|help", Arity: 2, Flags: Loading | Stale, Handler: cmdConfigHelp,
					Summary: "Show helpful text about the different subcommands", Group: "server", Complexity: "O(1)"},
			}},
	)
}

func configSub(name string, arity int, h Handler, summary string, tips []string) *Spec {
	return &Spec{Name: "config|" + name, Arity: arity, Flags: Admin | NoScript | Loading | Stale,
		Handler: h, Tips: tips, Summary: summary,
		Group: "server", Complexity: "O(N) when N is the number of configuration parameters provided"}
}

func cmdInfo(c *Ctx, args [][]byte) {
	sections := make([]string, 0, len(args)-1)
	for _, a := range args[1:] {
		sections = append(sections, string(a))
	}
	c.W.Verbatim("txt", []byte(c.Server.Info(sections)))
}

func cmdTime(c *Ctx, args [][]byte) {
	c.W.Array(2)
	us := c.Now * 1000
	if c.NowMicro != 0 {
		us = c.NowMicro
	}
	c.W.BulkString(strconv.FormatInt(us/1e6, 10))
	c.W.BulkString(strconv.FormatInt(us%1e6, 10))
}

func cmdConfigGet(c *Ctx, args [][]byte) {
	patterns := make([]string, 0, len(args)-2)
	for _, a := range args[2:] {
		patterns = append(patterns, string(a))
	}
	kv := c.Server.ConfigGet(patterns)
	c.W.Map(len(kv))
	for _, p := range kv {
		c.W.BulkString(p[0])
		c.W.BulkString(p[1])
	}
}

func cmdConfigSet(c *Ctx, args [][]byte) {
	if len(args)%2 != 0 {
		c.W.Error(errtext.Syntax)
		return
	}
	pairs := make([][2]string, 0, (len(args)-2)/2)
	for i := 2; i < len(args); i += 2 {
		pairs = append(pairs, [2]string{string(args[i]), string(args[i+1])})
	}
	if err := c.Server.ConfigSet(pairs); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Simple("OK")
}

func cmdConfigResetStat(c *Ctx, args [][]byte) {
	c.Server.ResetStats()
	c.W.Simple("OK")
}

func cmdConfigRewrite(c *Ctx, args [][]byte) {
	if err := c.Server.ConfigRewrite(); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Simple("OK")
}

func cmdConfigHelp(c *Ctx, args [][]byte) {
	help(c, "CONFIG", []string{
		"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
		"RESETSTAT", "    Reset statistics reported by the INFO command.",
		"REWRITE", "    Rewrite the configuration file.",
	})
}

func init() {
	debugSubcommands["sleep"] = cmdDebugSleep
}

// routeDebug places DEBUG's subcommands: POPULATE creates keys on every
// shard, DIGEST and DIGEST-VALUE digest every shard's keys (digest.go),
// the shards' persistence runs RELOAD (shard/snapshot.go), OBJECT and
// LISTPACK run where their key lives, the rest where the client is.
func routeDebug(args [][]byte) Route {
	switch strings.ToLower(string(args[1])) {
	case "populate":
		return Route{All: true}
	case "digest":
		return Route{All: true, Merge: MergeDigest}
	case "digest-value":
		return Route{All: true, Merge: MergeXor}
	case "reload":
		return Route{Persist: true}
	case "object", "listpack":
		if len(args) == 3 {
			return Route{Key: 2}
		}
	}
	return Route{}
}

// cmdDebugSleep is DEBUG SLEEP seconds: it stops the client's shard (not
// the whole server, as in Redis) for that long.
func cmdDebugSleep(c *Ctx, args [][]byte) {
	if len(args) != 3 {
		kvDebugSyntax(c, args)
		return
	}
	secs, ok := num.ParseDouble(args[2])
	if !ok {
		c.W.Error(errtext.NotFloat)
		return
	}
	time.Sleep(time.Duration(secs * float64(time.Second)))
	c.W.Simple("OK")
}
