package command

import (
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// WAITAOF numlocal numreplicas timeout, as Redis 7.2 (and Valkey 8): the
// shards' replication (shard/waitaof.go) waits until this server's AOF
// (numlocal 1) and numreplicas replicas' AOFs fsynced the writes made
// before it; its handler serves where it runs without placement (a
// transaction), answering at once.

func init() {
	register(&Spec{Name: "waitaof", Arity: 4, Flags: NoScript, ACL: []string{"connection"},
		Route: func([][]byte) Route { return Route{Persist: true} },
		Tips:  []string{"request_policy:all_shards", "response_policy:agg_min"},
		Handler: func(c *Ctx, args [][]byte) {
			numlocal, _, _, errText := WaitAOFArgs(args)
			if errText == "" {
				var local, replicas int
				local, replicas, errText = c.Server.AOFAcked(numlocal > 0)
				if errText == "" {
					c.W.Array(2)
					c.W.Int(int64(local))
					c.W.Int(int64(replicas))
					return
				}
			}
			c.W.Error(errText)
		},
		Summary: "Blocks until all of the preceding write commands sent by the connection are written to the append-only file of the master and/or replicas.",
		Since:   "7.2.0", Group: "generic", Complexity: "O(1)",
		Args: []Arg{{Name: "numlocal", Type: "integer"}, {Name: "numreplicas", Type: "integer"},
			{Name: "timeout", Type: "integer"}}})
}

// WaitAOFArgs reads WAITAOF's arguments as Redis 7.2 does: numlocal 0
// or 1, numreplicas not negative, the timeout in milliseconds not
// negative; errText is Redis's error when they are wrong.
func WaitAOFArgs(args [][]byte) (numlocal, numreplicas, ms int64, errText string) {
	numlocal, ok := num.ParseInt(args[1])
	if !ok {
		return 0, 0, 0, errtext.NotInt
	}
	if numlocal < 0 || numlocal > 1 {
		return 0, 0, 0, "ERR value is out of range, value must between 0 and 1"
	}
	if numreplicas, ok = num.ParseInt(args[2]); !ok {
		return 0, 0, 0, errtext.NotInt
	}
	if numreplicas < 0 {
		return 0, 0, 0, "ERR value is out of range, must be positive"
	}
	if ms, ok = num.ParseInt(args[3]); !ok {
		return 0, 0, 0, errtext.TimeoutNotInt
	}
	if ms < 0 {
		return 0, 0, 0, errtext.TimeoutNegative
	}
	return numlocal, numreplicas, ms, ""
}
