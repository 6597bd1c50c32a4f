package command

import (
	"strings"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
)

// The COMMAND family: the table describing itself. Replies follow Redis
// 7.0's shapes (commandCommand and friends in server.c), with rows and
// subcommands listed in name order where Redis uses hash order.

func init() {
	sub := func(name string, arity int, h Handler, tips ...string) *Spec {
		return &Spec{Name: "command|" + name, Arity: arity, Flags: Loading | Stale,
			ACL: []string{"connection"}, Handler: h, Tips: tips, Group: "server", Since: "2.8.13"}
	}
	info := sub("info", -2, cmdCommandInfo, "nondeterministic_output_order")
	info.Summary = "Get array of specific Redis command details, or all when no argument is given."
	info.Complexity = "O(N) where N is the number of commands to look up"
	info.History = [][2]string{{"7.0.0", "Allowed to be called with no argument to get info on all commands."}}
	info.Args = []Arg{{Name: "command-name", Type: "string", Flags: ArgOptional | ArgMultiple}}
	count := sub("count", 2, cmdCommandCount)
	count.Summary = "Get total number of Redis commands"
	count.Complexity = "O(1)"
	list := sub("list", -2, cmdCommandList, "nondeterministic_output_order")
	list.Summary = "Get an array of Redis command names"
	list.Since = "7.0.0"
	list.Complexity = "O(N) where N is the total number of Redis commands"
	list.Args = []Arg{{Name: "filterby", Type: "oneof", Token: "FILTERBY", Flags: ArgOptional, Args: []Arg{
		{Name: "module-name", Type: "string", Token: "MODULE"},
		{Name: "category", Type: "string", Token: "ACLCAT"},
		{Name: "pattern", Type: "pattern", Token: "PATTERN"},
	}}}
	getkeys := sub("getkeys", -4, cmdCommandGetKeys)
	getkeys.Summary = "Extract keys given a full Redis command"
	getkeys.Complexity = "O(N) where N is the number of arguments to the command"
	getkeysflags := sub("getkeysandflags", -4, cmdCommandGetKeysAndFlags)
	getkeysflags.Summary = "Extract keys and access flags given a full Redis command"
	getkeysflags.Since = "7.0.0"
	getkeysflags.Complexity = "O(N) where N is the number of arguments to the command"
	docs := sub("docs", -2, cmdCommandDocs, "nondeterministic_output_order")
	docs.Summary = "Get array of specific Redis command documentation"
	docs.Since = "7.0.0"
	docs.Complexity = "O(N) where N is the number of commands to look up"
	docs.Args = []Arg{{Name: "command-name", Type: "string", Flags: ArgOptional | ArgMultiple}}
	help := sub("help", 2, cmdCommandHelp)
	help.Summary = "Show helpful text about the different subcommands"
	help.Since = "5.0.0"
	help.Complexity = "O(1)"
	register(&Spec{
		Name: "command", Arity: -1, Flags: Loading | Stale, ACL: []string{"connection"},
		Tips: []string{"nondeterministic_output_order"}, Handler: cmdCommand,
		Summary: "Get array of Redis command details", Since: "2.8.13", Group: "server",
		Complexity: "O(N) where N is the total number of Redis commands",
		Sub:        []*Spec{info, count, list, getkeys, getkeysflags, docs, help},
	})
}

// flagNames are the command flags in the order Redis 7.0 prints them.
var flagNames = []struct {
	f    Flag
	name string
}{
	{Write, "write"}, {ReadOnly, "readonly"}, {DenyOOM, "denyoom"}, {Admin, "admin"},
	{PubSub, "pubsub"}, {NoScript, "noscript"}, {Blocking, "blocking"}, {Loading, "loading"},
	{Stale, "stale"}, {SkipMonitor, "skip_monitor"}, {SkipSlowlog, "skip_slowlog"},
	{Asking, "asking"}, {Fast, "fast"}, {NoAuth, "no_auth"}, {MayReplicate, "may_replicate"},
	{NoMandatoryKeys, "no_mandatory_keys"}, {NoAsyncLoading, "no_async_loading"},
	{NoMulti, "no_multi"}, {MovableKeys, "movablekeys"}, {AllowBusy, "allow_busy"},
}

// Names returns the flags' names in the order COMMAND INFO prints them.
func (f Flag) Names() []string {
	var out []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

var keyFlagNames = [...]string{"RO", "RW", "OW", "RM", "access", "update", "insert",
	"delete", "not_key", "incomplete", "variable_flags"}

// Names returns the key-spec flags' names in the order Redis prints them.
func (f KeyFlag) Names() []string {
	var out []string
	for i, n := range keyFlagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func writeStatusSet(w *resp.Writer, names []string) {
	w.Set(len(names))
	for _, n := range names {
		w.Simple(n)
	}
}

// WriteInfo writes s's COMMAND INFO entry (a 10-element array).
func WriteInfo(w *resp.Writer, s *Spec) {
	w.Array(10)
	w.BulkString(s.Name)
	w.Int(int64(s.Arity))
	writeStatusSet(w, s.Flags.Names())
	w.Int(int64(s.First))
	w.Int(int64(s.Last))
	w.Int(int64(s.Step))
	writeStatusSet(w, s.ACLCategories())
	w.Set(len(s.Tips))
	for _, t := range s.Tips {
		w.BulkString(t)
	}
	w.Set(len(s.KeySpecs))
	for i := range s.KeySpecs {
		writeKeySpec(w, &s.KeySpecs[i])
	}
	if len(s.Sub) == 0 {
		w.Set(0) // Redis 7.0: an empty set, but an array of subcommands
		return
	}
	w.Array(len(s.Sub))
	for _, sub := range s.Sub {
		WriteInfo(w, sub)
	}
}

func writeKeySpec(w *resp.Writer, k *KeySpec) {
	if k.Notes != "" {
		w.Map(4)
		w.BulkString("notes")
		w.BulkString(k.Notes)
	} else {
		w.Map(3)
	}
	w.BulkString("flags")
	writeStatusSet(w, k.Flags.Names())
	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	switch {
	case k.Unknown:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.Map(0)
	case k.Index > 0:
		w.BulkString("index")
		w.BulkString("spec")
		w.Map(1)
		w.BulkString("index")
		w.Int(int64(k.Index))
	default:
		w.BulkString("keyword")
		w.BulkString("spec")
		w.Map(2)
		w.BulkString("keyword")
		w.BulkString(k.Keyword)
		w.BulkString("startfrom")
		w.Int(int64(k.KeywordFrom))
	}
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	switch {
	case k.Unknown:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.Map(0)
	case k.KeyNum:
		w.BulkString("keynum")
		w.BulkString("spec")
		w.Map(3)
		w.BulkString("keynumidx")
		w.Int(int64(k.NumIdx))
		w.BulkString("firstkey")
		w.Int(int64(k.FirstKey))
		w.BulkString("keystep")
		w.Int(int64(k.Step))
	default:
		w.BulkString("range")
		w.BulkString("spec")
		w.Map(3)
		w.BulkString("lastkey")
		w.Int(int64(k.LastKey))
		w.BulkString("keystep")
		w.Int(int64(k.Step))
		w.BulkString("limit")
		w.Int(int64(k.Limit))
	}
}

// WriteDocs writes s's COMMAND DOCS entry (a map).
func WriteDocs(w *resp.Writer, s *Spec) {
	n := 1 // group is always there
	for _, present := range []bool{s.Summary != "", s.Since != "", s.Complexity != "",
		s.DocFlags != 0, s.DeprecatedSince != "", s.ReplacedBy != "", len(s.History) > 0,
		len(s.Args) > 0, len(s.Sub) > 0} {
		if present {
			n++
		}
	}
	w.Map(n)
	if s.Summary != "" {
		w.BulkString("summary")
		w.BulkString(s.Summary)
	}
	if s.Since != "" {
		w.BulkString("since")
		w.BulkString(s.Since)
	}
	w.BulkString("group")
	w.BulkString(s.Group)
	if s.Complexity != "" {
		w.BulkString("complexity")
		w.BulkString(s.Complexity)
	}
	if s.DocFlags != 0 {
		w.BulkString("doc_flags")
		var names []string
		if s.DocFlags&DocDeprecated != 0 {
			names = append(names, "deprecated")
		}
		if s.DocFlags&DocSysCmd != 0 {
			names = append(names, "syscmd")
		}
		writeStatusSet(w, names)
	}
	if s.DeprecatedSince != "" {
		w.BulkString("deprecated_since")
		w.BulkString(s.DeprecatedSince)
	}
	if s.ReplacedBy != "" {
		w.BulkString("replaced_by")
		w.BulkString(s.ReplacedBy)
	}
	if len(s.History) > 0 {
		w.BulkString("history")
		w.Set(len(s.History))
		for _, h := range s.History {
			w.Array(2)
			w.BulkString(h[0])
			w.BulkString(h[1])
		}
	}
	if len(s.Args) > 0 {
		w.BulkString("arguments")
		writeArgs(w, s.Args)
	}
	if len(s.Sub) > 0 {
		w.BulkString("subcommands")
		w.Map(len(s.Sub))
		for _, sub := range s.Sub {
			w.BulkString(sub.Name)
			WriteDocs(w, sub)
		}
	}
}

func writeArgs(w *resp.Writer, args []Arg) {
	w.Array(len(args))
	for i := range args {
		a := &args[i]
		block := a.Type == "oneof" || a.Type == "block"
		n := 2
		keyIdx := a.Type == "key" || a.Type == "pattern" && a.KeySpecIndex > 0
		// A pure token always has one, MIGRATE's "" too.
		token := a.Token != "" || a.Type == "pure-token"
		for _, present := range []bool{keyIdx, token, a.Summary != "",
			a.Since != "", a.DeprecatedSince != "", a.Flags != 0, block} {
			if present {
				n++
			}
		}
		w.Map(n)
		w.BulkString("name")
		w.BulkString(a.Name)
		w.BulkString("type")
		w.BulkString(a.Type)
		if keyIdx {
			w.BulkString("key_spec_index")
			w.Int(int64(a.KeySpecIndex))
		}
		if token {
			w.BulkString("token")
			w.BulkString(a.Token)
		}
		if a.Summary != "" {
			w.BulkString("summary")
			w.BulkString(a.Summary)
		}
		if a.Since != "" {
			w.BulkString("since")
			w.BulkString(a.Since)
		}
		if a.DeprecatedSince != "" {
			w.BulkString("deprecated_since")
			w.BulkString(a.DeprecatedSince)
		}
		if a.Flags != 0 {
			w.BulkString("flags")
			var names []string
			for j, name := range []string{"optional", "multiple", "multiple_token"} {
				if a.Flags&(1<<j) != 0 {
					names = append(names, name)
				}
			}
			writeStatusSet(w, names)
		}
		if block {
			w.BulkString("arguments")
			writeArgs(w, a.Args)
		}
	}
}

// cmdCommand is COMMAND with no subcommand: every row's COMMAND INFO.
func cmdCommand(c *Ctx, args [][]byte) {
	all := All()
	c.W.Array(len(all))
	for _, s := range all {
		WriteInfo(c.W, s)
	}
}

func cmdCommandCount(c *Ctx, args [][]byte) {
	c.W.Int(int64(len(All())))
}

func cmdCommandInfo(c *Ctx, args [][]byte) {
	if len(args) == 2 {
		cmdCommand(c, args)
		return
	}
	c.W.Array(len(args) - 2)
	for _, name := range args[2:] {
		if s := LookupFull(name); s != nil {
			WriteInfo(c.W, s)
		} else {
			c.W.Null()
		}
	}
}

func cmdCommandDocs(c *Ctx, args [][]byte) {
	if len(args) == 2 {
		all := All()
		c.W.Map(len(all))
		for _, s := range all {
			c.W.BulkString(s.Name)
			WriteDocs(c.W, s)
		}
		return
	}
	n := 0
	for _, name := range args[2:] {
		if LookupFull(name) != nil {
			n++
		}
	}
	c.W.Map(n)
	for _, name := range args[2:] {
		if s := LookupFull(name); s != nil {
			c.W.BulkString(s.Name)
			WriteDocs(c.W, s)
		}
	}
}

func cmdCommandList(c *Ctx, args [][]byte) {
	var match func(s *Spec) bool
	switch {
	case len(args) == 2:
	case len(args) == 5 && strings.EqualFold(string(args[2]), "filterby"):
		arg := args[4]
		switch strings.ToLower(string(args[3])) {
		case "module":
			match = func(*Spec) bool { return false }
		case "aclcat":
			cat := string(arg)
			match = func(s *Spec) bool { return !strings.HasPrefix(cat, "@") && s.HasACL(cat) }
		case "pattern":
			match = func(s *Spec) bool { return engine.Match(arg, []byte(s.Name), true) }
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	var names []string
	var walk func(specs []*Spec)
	walk = func(specs []*Spec) {
		for _, s := range specs {
			if match == nil || match(s) {
				names = append(names, s.Name)
			}
			walk(s.Sub)
		}
	}
	walk(All())
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

func cmdCommandGetKeys(c *Ctx, args [][]byte)         { getKeys(c, args[2:], false) }
func cmdCommandGetKeysAndFlags(c *Ctx, args [][]byte) { getKeys(c, args[2:], true) }

// getKeys is Redis's getKeysSubcommandImpl for the command in args.
func getKeys(c *Ctx, args [][]byte, withFlags bool) {
	s := Lookup(args[0])
	if s != nil && s.subs != nil && len(args) > 1 {
		s = s.LookupSub(args[1])
	}
	switch {
	case s == nil:
		c.W.Error("ERR Invalid command specified")
		return
	case !s.HasKeys():
		c.W.Error("ERR The command has no key arguments")
		return
	case !CheckArity(s, len(args)):
		c.W.Error("ERR Invalid number of arguments specified for command")
		return
	}
	var buf [16]KeyRange
	rs, ok := s.KeyRanges(args, buf[:0])
	n := 0
	for _, r := range rs {
		n += r.Count
	}
	if !ok || n == 0 {
		// Redis falls back to the command's own key finder, which for
		// EVAL-like commands (no mandatory keys) finds none rather than
		// failing.
		if s.Flags&NoMandatoryKeys != 0 {
			c.W.Array(0)
		} else {
			c.W.Error("ERR Invalid arguments specified for command")
		}
		return
	}
	c.W.Array(n)
	for _, r := range rs {
		for i := r.First; i <= r.Last; i += r.Step {
			if !withFlags {
				c.W.Bulk(args[i])
				continue
			}
			c.W.Array(2)
			c.W.Bulk(args[i])
			writeStatusSet(c.W, s.KeyFlagsOf(r, args).Names())
		}
	}
}

var commandHelp = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
	"HELP",
	"    Prints this help.",
}

func cmdCommandHelp(c *Ctx, args [][]byte) {
	c.W.Array(len(commandHelp))
	for _, l := range commandHelp {
		c.W.Simple(l)
	}
}
