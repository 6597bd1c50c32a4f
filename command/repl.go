package command

import (
	"strings"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
)

// The replication family: REPLICAOF (and SLAVEOF), ROLE, REPLCONF. The
// shards' replication (shard/repl.go, persistence/repl) does the work:
// REPLICAOF and REPLCONF are placed there by their Route, as a
// promotion's reply waits for every shard and REPLCONF names the
// connection; their handlers serve where a command runs without
// placement (a transaction).

func init() {
	persist := func([][]byte) Route { return Route{Persist: true} }
	register(
		&Spec{Name: "replicaof", Arity: 3, Flags: Admin | NoScript | Stale | NoAsyncLoading, Route: persist,
			Handler: cmdReplicaOf, Summary: replicaOfSummary, Args: replicaOfArgs,
			Since: "5.0.0", Group: "server", Complexity: "O(1)"},
		&Spec{Name: "slaveof", Arity: 3, Flags: Admin | NoScript | Stale | NoAsyncLoading, Route: persist,
			Handler: cmdReplicaOf, Summary: replicaOfSummary, Args: replicaOfArgs,
			Since: "1.0.0", Group: "server", Complexity: "O(1)", DocFlags: DocDeprecated,
			DeprecatedSince: "5.0.0", ReplacedBy: "`REPLICAOF`"},
		&Spec{Name: "role", Arity: 1, Flags: NoScript | Loading | Stale | Fast, ACL: []string{"admin", "dangerous"},
			Handler: func(c *Ctx, args [][]byte) { c.Server.Role(c.W) },
			Summary: "Return the role of the instance in the context of replication", Since: "2.8.12", Group: "server", Complexity: "O(1)"},
		&Spec{Name: "replconf", Arity: -1, Flags: Admin | NoScript | Loading | Stale | AllowBusy, Route: persist,
			Handler: func(c *Ctx, args [][]byte) { ReplConf(c.W, args) },
			Summary: "An internal command for configuring the replication stream", Since: "3.0.0",
			Group: "server", Complexity: "O(1)", DocFlags: DocSysCmd},
		&Spec{Name: "psync", Arity: -3, Flags: Admin | NoScript | NoAsyncLoading | NoMulti, Route: persist,
			Summary: "Internal command used for replication", Since: "2.8.0", Group: "server",
			Args: []Arg{{Name: "replicationid", Type: "string"}, {Name: "offset", Type: "integer"}}},
		&Spec{Name: "sync", Arity: 1, Flags: Admin | NoScript | NoAsyncLoading | NoMulti, Route: persist,
			Summary: "Internal command used for replication", Since: "1.0.0", Group: "server"},
		&Spec{Name: "wait", Arity: 3, Flags: NoScript, ACL: []string{"connection"}, Route: persist,
			Tips:    []string{"request_policy:all_shards", "response_policy:agg_min"},
			Handler: cmdWaitInMulti,
			Summary: "Wait for the synchronous replication of all the write commands sent in the context of the current connection",
			Since:   "3.0.0", Group: "generic", Complexity: "O(1)",
			Args: []Arg{{Name: "numreplicas", Type: "integer"}, {Name: "timeout", Type: "integer"}}},
	)
}

// cmdWaitInMulti is WAIT inside a transaction, which Redis answers at
// once: it counts the replicas that acknowledged everything so far.
func cmdWaitInMulti(c *Ctx, args [][]byte) {
	if _, _, errText := WaitArgs(args); errText != "" {
		c.W.Error(errText)
		return
	}
	c.W.Int(int64(c.Server.ReplicasAcked()))
}

// WaitArgs reads WAIT's arguments as Redis does, numreplicas first:
// integers by string2ll's rules, the timeout in milliseconds not
// negative; errText is Redis's error when they are wrong.
func WaitArgs(args [][]byte) (need, ms int64, errText string) {
	need, ok := num.ParseInt(args[1])
	if !ok {
		return 0, 0, errtext.NotInt
	}
	if ms, ok = num.ParseInt(args[2]); !ok {
		return 0, 0, errtext.TimeoutNotInt
	}
	if ms < 0 {
		return 0, 0, errtext.TimeoutNegative
	}
	return need, ms, ""
}

const replicaOfSummary = "Make the server a replica of another instance, or promote it as master."

var replicaOfArgs = []Arg{{Name: "args", Type: "oneof", Args: []Arg{
	{Name: "host-port", Type: "block", Args: []Arg{{Name: "host", Type: "string"}, {Name: "port", Type: "integer"}}},
	{Name: "no-one", Type: "block", Args: []Arg{{Name: "no", Type: "pure-token", Token: "NO"}, {Name: "one", Type: "pure-token", Token: "ONE"}}},
}}}

// cmdReplicaOf is REPLICAOF inside a transaction: the role changes in
// the background, after the reply.
func cmdReplicaOf(c *Ctx, args [][]byte) {
	host, port, errText := ReplicaOfArgs(args)
	if errText != "" {
		c.W.Error(errText)
		return
	}
	c.Server.ReplicaOf(host, port)
	c.W.OK()
}

// ReplicaOfArgs reads REPLICAOF's arguments: host and port, or NO ONE
// (host ""); errText is Redis's error when they are wrong.
func ReplicaOfArgs(args [][]byte) (host string, port int, errText string) {
	if strings.EqualFold(string(args[1]), "no") && strings.EqualFold(string(args[2]), "one") {
		return "", 0, ""
	}
	// Redis's getRangeLongFromObjectOrReply: one text for both.
	p, ok := num.ParseInt(args[2])
	if !ok || p < 0 || p > 65535 {
		return "", 0, "ERR Invalid master port"
	}
	return string(args[1]), int(p), ""
}

// ReplConf answers a REPLCONF: the options a replica sends in its
// handshake are accepted; ACK and GETACK are not answered.
func ReplConf(w *resp.Writer, args [][]byte) {
	if len(args)%2 == 0 {
		w.Error(errtext.Syntax)
		return
	}
	for i := 1; i < len(args); i += 2 {
		switch strings.ToLower(string(args[i])) {
		case "listening-port", "ip-address", "capa", "rdb-only", "rdb-filter-only":
		case "ack", "getack":
			return
		default:
			w.Error("ERR Unrecognized REPLCONF option: " + string(args[i]))
			return
		}
	}
	w.OK()
}
