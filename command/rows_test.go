package command

import (
	"os"
	"testing"
)

// testRows are rows shaped exactly like Redis 7.0's (they pass the golden
// test) covering every key-spec form: index/keyword begin search,
// range/keynum find keys, limit, step, incomplete and unknown specs. TestMain
// registers those the real families have not registered (yet), so the key
// extraction tests run whatever the table holds.
var testRows = []*Spec{
	{Name: "get", Arity: 2, Flags: ReadOnly | Fast, ACL: []string{"string"},
		KeySpecs: []KeySpec{{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1}}},
	{Name: "set", Arity: -3, Flags: Write | DenyOOM, ACL: []string{"string"},
		KeySpecs: []KeySpec{{Notes: "RW and ACCESS due to the optional `GET` argument",
			Flags: KeyRW | KeyAccess | KeyUpdate | KeyVariableFlags, Index: 1, LastKey: 0, Step: 1}}},
	{Name: "mget", Arity: -2, Flags: ReadOnly | Fast, ACL: []string{"string"},
		Tips:     []string{"request_policy:multi_shard"},
		KeySpecs: []KeySpec{{Flags: KeyRO | KeyAccess, Index: 1, LastKey: -1, Step: 1}}},
	{Name: "mset", Arity: -3, Flags: Write | DenyOOM, ACL: []string{"string"},
		Tips:     []string{"request_policy:multi_shard", "response_policy:all_succeeded"},
		KeySpecs: []KeySpec{{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: -1, Step: 2}}},
	{Name: "del", Arity: -2, Flags: Write, ACL: []string{"keyspace"},
		Tips:     []string{"request_policy:multi_shard", "response_policy:agg_sum"},
		KeySpecs: []KeySpec{{Flags: KeyRM | KeyDelete, Index: 1, LastKey: -1, Step: 1}}},
	{Name: "zunionstore", Arity: -4, Flags: Write | DenyOOM, ACL: []string{"sortedset"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1}}},
	{Name: "xread", Arity: -4, Flags: ReadOnly | Blocking, ACL: []string{"stream"},
		KeySpecs: []KeySpec{{Flags: KeyRO | KeyAccess, Keyword: "STREAMS", KeywordFrom: 1, LastKey: -1, Step: 1, Limit: 2}}},
	{Name: "eval", Arity: -3, Flags: NoScript | SkipMonitor | NoMandatoryKeys | Stale, ACL: []string{"scripting"},
		KeySpecs: []KeySpec{{Notes: "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE",
			Flags: KeyRW | KeyAccess | KeyUpdate, Index: 2, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1}}},
	{Name: "migrate", Arity: -6, Flags: Write, ACL: []string{"keyspace", "dangerous"},
		Tips: []string{"nondeterministic_output"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyDelete, Index: 3, LastKey: 0, Step: 1},
			{Flags: KeyRW | KeyAccess | KeyDelete | KeyIncomplete, Keyword: "KEYS", KeywordFrom: -2, LastKey: -1, Step: 1}}},
	{Name: "sort", Arity: -2, Flags: Write | DenyOOM, ACL: []string{"set", "sortedset", "list", "dangerous"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
			{Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort",
				Flags: KeyRO | KeyAccess, Unknown: true},
			{Notes: "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array",
				Flags: KeyOW | KeyUpdate, Unknown: true}}},
	{Name: "georadius", Arity: -6, Flags: Write | DenyOOM, ACL: []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyOW | KeyUpdate, Keyword: "STORE", KeywordFrom: 6, LastKey: 0, Step: 1},
			{Flags: KeyOW | KeyUpdate, Keyword: "STOREDIST", KeywordFrom: 6, LastKey: 0, Step: 1}}},
	{Name: "lmpop", Arity: -4, Flags: Write, ACL: []string{"list"},
		KeySpecs: []KeySpec{{Flags: KeyRW | KeyAccess | KeyDelete, Index: 1, KeyNum: true, NumIdx: 0, FirstKey: 1, Step: 1}}},
}

func TestMain(m *testing.M) {
	for _, s := range testRows {
		if Lookup([]byte(s.Name)) == nil {
			register(s)
		}
	}
	os.Exit(m.Run())
}
