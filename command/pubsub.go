package command

import "github.com/radish-kv/radish/errtext"

// The Pub/Sub family. Its commands reach connections on every shard, so
// the shard loop runs them (shard/pubsub.go), reading the row's PubSubOp.
// Their handlers run them inside EXEC only, through Ctx.Local: PUBLISH and
// SPUBLISH on every shard (each delivers to its own subscribers and counts
// them, the counts are summed), (P)SUBSCRIBE and (P)UNSUBSCRIBE on the
// connection's shard, as does SUNSUBSCRIBE; the PUBSUB introspection
// subcommands on every shard (each reports its part, merged by the row's
// Merge). SSUBSCRIBE is refused inside EXEC with Redis's text.

// PubSubOp is what a Pub/Sub row asks the shard loop to do.
type PubSubOp uint8

// Pub/Sub operations.
const (
	PSNone PubSubOp = iota
	PSSubscribe
	PSUnsubscribe
	PSPSubscribe
	PSPUnsubscribe
	PSSSubscribe
	PSSUnsubscribe
	PSPublish
	PSSPublish
	PSChannels
	PSNumSub
	PSNumPat
	PSShardChannels
	PSShardNumSub
)

// PubSubOf returns the operation of a Pub/Sub row (PSNone for any other).
func PubSubOf(s *Spec) PubSubOp { return s.PubSub }

// SubscribedOK reports whether a RESP2 client in subscribed mode may run
// s: the (un)subscribe commands, PING, QUIT and RESET, as in Redis.
func SubscribedOK(s *Spec) bool {
	switch op := s.PubSub; {
	case op >= PSSubscribe && op <= PSSUnsubscribe:
		return true
	}
	switch s.Name {
	case "ping", "quit", "reset":
		return true
	}
	return false
}

func init() {
	ps := func(name string, arity int, op PubSubOp, s *Spec) *Spec {
		s.Name, s.Arity = name, arity
		if s.Flags == 0 {
			s.Flags = PubSub | NoScript | Loading | Stale
		}
		if s.Group == "" {
			s.Group = "pubsub"
		}
		s.PubSub = op
		switch op {
		case PSPublish:
			// Inside EXEC, on every shard, the receivers summed (outside it
			// the shard loop runs it and sums the counts itself).
			s.Handler, s.AllShards, s.Merge = cmdPublish, true, MergeSum
		case PSSPublish:
			s.Handler, s.AllShards, s.Merge = cmdSPublish, true, MergeSum
		case PSSubscribe, PSPSubscribe, PSUnsubscribe, PSPUnsubscribe, PSSUnsubscribe:
			s.Handler = cmdSubscribeInExec
		case PSSSubscribe:
			s.Handler = cmdSSubscribeInExec
		case PSChannels, PSShardChannels:
			s.Handler, s.AllShards, s.Merge = pubsubPart(op), true, MergeUnion
		case PSNumPat:
			s.Handler, s.AllShards, s.Merge = pubsubPart(op), true, MergeUnionCount
		case PSNumSub, PSShardNumSub:
			s.Handler, s.AllShards, s.Merge = pubsubPart(op), true, MergePairSum
		default:
			s.Handler = cmdPubSubInExec
		}
		return s
	}
	chans := func(flags ArgFlag) []Arg { return []Arg{{Name: "channel", Type: "string", Flags: flags}} }
	pats := []Arg{{Name: "pattern", Type: "pattern", Flags: ArgOptional | ArgMultiple}}
	shardChans := func(flags ArgFlag) []Arg {
		return []Arg{{Name: "shardchannel", Type: "string", Flags: flags}}
	}
	notKey := func(last int) []KeySpec {
		return []KeySpec{{Flags: KeyNotKey, Index: 1, LastKey: last, Step: 1}}
	}
	register(
		ps("subscribe", -2, PSSubscribe, &Spec{Summary: "Listen for messages published to the given channels",
			Since: "2.0.0", Complexity: "O(N) where N is the number of channels to subscribe to.",
			Args: chans(ArgMultiple)}),
		ps("unsubscribe", -1, PSUnsubscribe, &Spec{Summary: "Stop listening for messages posted to the given channels",
			Since: "2.0.0", Complexity: "O(N) where N is the number of clients already subscribed to a channel.",
			Args: chans(ArgOptional | ArgMultiple)}),
		ps("psubscribe", -2, PSPSubscribe, &Spec{
			Summary: "Listen for messages published to channels matching the given patterns", Since: "2.0.0",
			Complexity: "O(N) where N is the number of patterns the client is already subscribed to.",
			Args: []Arg{{Name: "pattern", Type: "block", Flags: ArgMultiple,
				Args: []Arg{{Name: "pattern", Type: "pattern"}}}}}),
		ps("punsubscribe", -1, PSPUnsubscribe, &Spec{
			Summary: "Stop listening for messages posted to channels matching the given patterns", Since: "2.0.0",
			Complexity: "O(N+M) where N is the number of patterns the client is already subscribed and M is " +
				"the number of total patterns subscribed in the system (by any client).",
			Args: pats}),
		ps("ssubscribe", -2, PSSSubscribe, &Spec{KeySpecs: notKey(-1),
			Summary: "Listen for messages published to the given shard channels", Since: "7.0.0",
			Complexity: "O(N) where N is the number of shard channels to subscribe to.",
			Args:       shardChans(ArgMultiple)}),
		ps("sunsubscribe", -1, PSSUnsubscribe, &Spec{KeySpecs: notKey(-1),
			Summary: "Stop listening for messages posted to the given shard channels", Since: "7.0.0",
			Complexity: "O(N) where N is the number of clients already subscribed to a shard channel.",
			Args:       shardChans(ArgOptional | ArgMultiple)}),
		ps("publish", 3, PSPublish, &Spec{Flags: PubSub | Loading | Stale | Fast,
			Summary: "Post a message to a channel", Since: "2.0.0",
			Complexity: "O(N+M) where N is the number of clients subscribed to the receiving channel and M is " +
				"the total number of subscribed patterns (by any client).",
			Args: []Arg{{Name: "channel", Type: "string"}, {Name: "message", Type: "string"}}}),
		ps("spublish", 3, PSSPublish, &Spec{Flags: PubSub | Loading | Stale | Fast, KeySpecs: notKey(0),
			Summary: "Post a message to a shard channel", Since: "7.0.0",
			Complexity: "O(N) where N is the number of clients subscribed to the receiving shard channel.",
			Args:       []Arg{{Name: "shardchannel", Type: "string"}, {Name: "message", Type: "string"}}}),
		&Spec{Name: "pubsub", Arity: -2, Summary: "A container for Pub/Sub commands", Since: "2.8.0",
			Group: "pubsub", Complexity: "Depends on subcommand.", Sub: []*Spec{
				ps("pubsub|channels", -2, PSChannels, &Spec{Flags: PubSub | Loading | Stale,
					Summary: "List active channels", Since: "2.8.0",
					Complexity: "O(N) where N is the number of active channels, and assuming constant time " +
						"pattern matching (relatively short channels and patterns)",
					Args: []Arg{{Name: "pattern", Type: "pattern", Flags: ArgOptional}}}),
				{Name: "pubsub|help", Arity: 2, Flags: Loading | Stale, Handler: cmdPubSubHelp,
					Summary: "Show helpful text about the different subcommands", Since: "6.2.0",
					Group: "pubsub", Complexity: "O(1)"},
				ps("pubsub|numpat", 2, PSNumPat, &Spec{Flags: PubSub | Loading | Stale,
					Summary: "Get the count of unique patterns pattern subscriptions", Since: "2.8.0",
					Complexity: "O(1)"}),
				ps("pubsub|numsub", -2, PSNumSub, &Spec{Flags: PubSub | Loading | Stale,
					Summary: "Get the count of subscribers for channels", Since: "2.8.0",
					Complexity: "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
					Args:       chans(ArgOptional | ArgMultiple)}),
				ps("pubsub|shardchannels", -2, PSShardChannels, &Spec{Flags: PubSub | Loading | Stale,
					Summary: "List active shard channels", Since: "7.0.0",
					Complexity: "O(N) where N is the number of active shard channels, and assuming constant " +
						"time pattern matching (relatively short shard channels).",
					Args: []Arg{{Name: "pattern", Type: "pattern", Flags: ArgOptional}}}),
				ps("pubsub|shardnumsub", -2, PSShardNumSub, &Spec{Flags: PubSub | Loading | Stale,
					Summary: "Get the count of subscribers for shard channels", Since: "7.0.0",
					Complexity: "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested " +
						"shard channels",
					Args: shardChans(ArgOptional | ArgMultiple)}),
			}},
	)
}

// errPubSubInExec is the reply, inside EXEC, of the Pub/Sub commands that
// need more than one shard's state at once.
const errPubSubInExec = "ERR this Pub/Sub command is not supported inside MULTI"

func cmdPublish(c *Ctx, args [][]byte)  { c.W.Int(c.Local.Publish(args[1], args[2])) }
func cmdSPublish(c *Ctx, args [][]byte) { c.W.Int(c.Local.SPublish(args[1], args[2])) }

func cmdSubscribeInExec(c *Ctx, args [][]byte) {
	spec := Lookup(args[0])
	if c.Client == nil || !c.Local.Subscribe(c.Client, spec.PubSub, args[1:], c.W) {
		c.W.Error(errPubSubInExec)
	}
}

func cmdPubSubInExec(c *Ctx, args [][]byte) { c.W.Error(errPubSubInExec) }

// cmdSSubscribeInExec is SSUBSCRIBE inside EXEC: refused, as Redis
// refuses it to a client that cannot block.
func cmdSSubscribeInExec(c *Ctx, args [][]byte) {
	c.W.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
}

// pubsubPart is a PUBSUB introspection subcommand inside EXEC, on one
// shard: its part, which the row's Merge combines with the others'.
func pubsubPart(op PubSubOp) Handler {
	return func(c *Ctx, args [][]byte) {
		if (op == PSChannels || op == PSShardChannels) && len(args) > 3 {
			c.W.Error(errtext.SubSyntax(args[0], args[1]))
			return
		}
		names, counts := c.Local.PubSubQuery(op, args[2:])
		if counts == nil {
			c.W.Array(len(names))
			for _, n := range names {
				c.W.BulkString(n)
			}
			return
		}
		c.W.Array(2 * len(counts))
		for i, n := range counts {
			c.W.Bulk(args[2+i])
			c.W.Int(n)
		}
	}
}

func cmdPubSubHelp(c *Ctx, args [][]byte) {
	lines := []string{
		"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CHANNELS [<pattern>]",
		"    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)",
		"HELP",
		"    Prints this help.",
	}
	c.W.Array(len(lines))
	for _, l := range lines {
		c.W.Simple(l)
	}
}
