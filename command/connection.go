package command

import (
	"fmt"
	"slices"
	"strings"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// The connection family: commands about the client's own connection. They
// have no keys, so they always run on the shard that owns the connection
// and Ctx.Client is set.

func init() {
	conn := []string{"connection"}
	register(
		&Spec{Name: "ping", Arity: -1, Flags: Fast, ACL: conn, Handler: cmdPing,
			Tips:    []string{"request_policy:all_shards", "response_policy:all_succeeded"},
			Summary: "Ping the server", Since: "1.0.0", Group: "connection", Complexity: "O(1)"},
		&Spec{Name: "echo", Arity: 2, Flags: Loading | Stale | Fast, ACL: conn, Handler: cmdEcho,
			Summary: "Echo the given string", Since: "1.0.0", Group: "connection", Complexity: "O(1)"},
		&Spec{Name: "hello", Arity: -1, Flags: NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, ACL: conn,
			Handler: cmdHello, Redact: redactHello, Summary: "Handshake with Redis", Since: "6.0.0", Group: "connection", Complexity: "O(1)"},
		&Spec{Name: "auth", Arity: -2, Flags: NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, ACL: conn,
			Handler: cmdAuth, Redact: redactFrom(1), Summary: "Authenticate to the server", Since: "1.0.0", Group: "connection",
			Complexity: "O(N) where N is the number of passwords defined for the user"},
		&Spec{Name: "select", Arity: 2, Flags: Loading | Stale | Fast, ACL: conn, Handler: cmdSelect, Selects: selectDB,
			Summary: "Change the selected database for the current connection", Since: "1.0.0",
			Group: "connection", Complexity: "O(1)"},
		&Spec{Name: "quit", Arity: -1, Flags: NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, ACL: conn,
			Tx: TxQuit, Handler: cmdQuit, Summary: "Close the connection", Since: "1.0.0", Group: "connection", Complexity: "O(1)"},
		&Spec{Name: "reset", Arity: 1, Flags: NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, ACL: conn,
			Tx: TxReset, Handler: cmdReset, Summary: "Reset the connection", Since: "6.2.0", Group: "connection", Complexity: "O(1)"},
		clientSpec,
	)
}

var clientSpec = &Spec{Name: "client", Arity: -2,
	Summary: "A container for client connection commands", Since: "2.4.0", Group: "connection",
	Complexity: "Depends on subcommand.",
	// CLIENT LIST, KILL and UNBLOCK run on every shard, which Redis's tips
	// cannot say: Redis has one set of connections, Radish one per shard.
	Sub: []*Spec{
		clientSub("id", 2, 0, cmdClientID, "Returns the client ID for the current connection"),
		clientSub("setname", 3, 0, cmdClientSetName, "Set the current connection name"),
		clientSub("getname", 2, 0, cmdClientGetName, "Get the current connection name"),
		clientSub("setinfo", 4, 0, cmdClientSetInfo, "Set client or connection specific info"),
		func() *Spec {
			s := clientSub("info", 2, 0, cmdClientInfo, "Returns information about the current client connection.")
			s.Tips = []string{"nondeterministic_output"}
			return s
		}(),
		clientSub("reply", 3, 0, cmdClientReply, "Instruct the server whether to reply to commands"),
		clientSub("no-evict", 3, Admin, cmdClientNoEvict, "Set client eviction mode for the current connection"),
		clientSub("no-touch", 3, 0, cmdClientNoTouch,
			"Controls whether commands sent by the client will alter the LRU/LFU of the keys they access."),
		func() *Spec {
			s := clientSub("capa", -3, 0, cmdClientCapa, "A client claims its capability.")
			s.Since, s.Args = "8.0.0", []Arg{{Name: "capability", Type: "string", Flags: ArgMultiple}}
			return s
		}(),
		trackingSubs[0], trackingSubs[1], trackingSubs[2], trackingSubs[3],
		clientSub("help", 2, 0, cmdClientHelp, "Show helpful text about the different subcommands"),
		clientSub("pause", -3, Admin, cmdClientPause, "Stop processing commands from clients for some time"),
		clientSub("unpause", 2, Admin, cmdClientUnpause, "Resume processing of clients that were paused"),
		func() *Spec {
			s := clientSub("list", -2, Admin, cmdClientList, "Get the list of client connections")
			s.AllShards, s.Merge = true, MergeText
			s.Tips = []string{"nondeterministic_output"}
			return s
		}(),
		func() *Spec {
			s := clientSub("kill", -3, Admin, cmdClientKill, "Kill the connection of a client")
			s.Route = routeClientKill
			return s
		}(),
		func() *Spec {
			s := clientSub("unblock", -3, Admin, cmdClientUnblock,
				"Unblock a client blocked in a blocking command from a different connection")
			s.AllShards, s.Merge = true, MergeSum
			return s
		}(),
	},
}

func clientSub(name string, arity int, extra Flag, h Handler, summary string) *Spec {
	flags := NoScript | Loading | Stale | extra
	if name == "help" {
		flags = Loading | Stale
	}
	return &Spec{Name: "client|" + name, Arity: arity, Flags: flags, ACL: []string{"connection"}, Handler: h,
		Summary: summary, Group: "connection", Complexity: "O(1)"}
}

func cmdPing(c *Ctx, args [][]byte) {
	if cl := c.Client; cl != nil && cl.Proto == 2 && cl.Subscribed() && len(args) <= 2 {
		// Subscribed mode: ["pong", the argument or ""].
		c.W.Array(2)
		c.W.BulkString("pong")
		if len(args) == 2 {
			c.W.Bulk(args[1])
		} else {
			c.W.BulkString("")
		}
		return
	}
	switch len(args) {
	case 1:
		c.W.Simple("PONG")
	case 2:
		c.W.Bulk(args[1])
	default:
		c.W.WrongArgs("ping")
	}
}

func cmdEcho(c *Ctx, args [][]byte) { c.W.Bulk(args[1]) }

func cmdHello(c *Ctx, args [][]byte) {
	cl := c.Client
	proto := cl.Proto
	i := 1
	if len(args) > 1 {
		v, ok := num.ParseInt(args[1])
		if !ok {
			c.W.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if v < 2 || v > 3 {
			c.W.Error("NOPROTO unsupported protocol version")
			return
		}
		proto = int(v)
		i = 2
	}
	name, setName := "", false
	for ; i < len(args); i++ {
		more := len(args) - i - 1
		switch opt := strings.ToLower(string(args[i])); {
		case opt == "auth" && more >= 2:
			if !checkAuth(c, args[0], args[i+1], args[i+2]) {
				return
			}
			i += 2
		case opt == "setname" && more >= 1:
			if msg := validName(args[i+1]); msg != "" {
				c.W.Error(msg)
				return
			}
			name, setName = string(args[i+1]), true
			i++
		default:
			c.W.Error("ERR Syntax error in HELLO option '" + string(args[i]) + "'")
			return
		}
	}
	if !cl.Authed {
		c.W.Error("NOAUTH HELLO must be called with the client already authenticated, " +
			"otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate " +
			"the client and select the RESP protocol version at the same time")
		return
	}
	if setName {
		cl.Name = name
	}
	cl.Proto = proto
	c.W.Proto = proto
	w := c.W
	w.Map(7)
	w.BulkString("server")
	w.BulkString("redis")
	w.BulkString("version")
	w.BulkString(Version)
	w.BulkString("proto")
	w.Int(int64(proto))
	w.BulkString("id")
	w.Int(cl.ID)
	w.BulkString("mode")
	w.BulkString("standalone")
	w.BulkString("role")
	if c.Server.Replica() {
		w.BulkString("replica")
	} else {
		w.BulkString("master")
	}
	w.BulkString("modules")
	w.Array(0)
}

// checkAuth authenticates the client as user with pass (package acl's
// users) and replies with the error when they are wrong.
func checkAuth(c *Ctx, cmd, user, pass []byte) bool {
	if !c.Local.Authenticate(c.Client, cmd, user, pass) {
		c.W.Error("WRONGPASS invalid username-password pair or user is disabled.")
		return false
	}
	return true
}

func cmdAuth(c *Ctx, args [][]byte) {
	if len(args) > 3 {
		c.W.Error(errtext.Syntax)
		return
	}
	if len(args) == 2 && c.Server.DefaultNoPass() {
		c.W.Error("ERR AUTH <password> called without any password configured for the default user. " +
			"Are you sure your configuration is correct?")
		return
	}
	user, pass := []byte("default"), args[1]
	if len(args) == 3 {
		user, pass = args[1], args[2]
	}
	if checkAuth(c, args[0], user, pass) {
		c.W.Simple("OK")
	}
}

func cmdSelect(c *Ctx, args [][]byte) {
	n, ok := kvArgInt32(c, args[1], "")
	if !ok {
		return
	}
	if n < 0 || n >= c.Store.Databases() {
		c.W.Error(errtext.DBRange)
		return
	}
	c.Client.DB = int(n)
	c.W.Simple("OK")
}

// selectDB is the database SELECT selects, -1 when it would refuse it
// (the shard checks the range).
func selectDB(args [][]byte) int { return argDB(args[1]) }

func cmdQuit(c *Ctx, args [][]byte) {
	c.Client.Close = true
	c.W.Simple("OK")
}

func cmdReset(c *Ctx, args [][]byte) {
	cl := c.Client
	cl.DB = 0
	cl.Proto = 2
	cl.Name = ""
	cl.Reply = ReplyOn
	cl.NoEvict = false
	cl.NoTouch = false
	cl.ReadOnly = false
	if c.Local != nil {
		c.Local.Authenticate(cl, nil, nil, nil)
		c.Local.Unsubscribe(cl)
		c.Local.Monitor(cl, false)
		if cl.Track.On {
			old := slices.Clone(cl.Track.Prefixes)
			cl.Track.Off()
			c.Local.Tracked(cl, old)
		}
	}
	c.W.Proto = 2
	c.W.Simple("RESET")
}

func cmdClientID(c *Ctx, args [][]byte) { c.W.Int(c.Client.ID) }

// validName returns Redis's error for a client name with spaces or
// non-printable characters, or "".
func validName(b []byte) string {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return "ERR Client names cannot contain spaces, newlines or special characters."
		}
	}
	return ""
}

func cmdClientSetName(c *Ctx, args [][]byte) {
	if msg := validName(args[2]); msg != "" {
		c.W.Error(msg)
		return
	}
	c.Client.Name = string(args[2])
	c.W.Simple("OK")
}

func cmdClientGetName(c *Ctx, args [][]byte) {
	if c.Client.Name == "" {
		c.W.Null()
		return
	}
	c.W.BulkString(c.Client.Name)
}

func cmdClientSetInfo(c *Ctx, args [][]byte) {
	attr, val := strings.ToLower(string(args[2])), args[3]
	for _, ch := range val {
		if ch < '!' || ch > '~' {
			c.W.Error("ERR " + attr + " cannot contain spaces, newlines or special characters.")
			return
		}
	}
	switch attr {
	case "lib-name":
		c.Client.LibName = string(val)
	case "lib-ver":
		c.Client.LibVer = string(val)
	default:
		c.W.Error("ERR Unrecognized option '" + string(args[2]) + "'")
		return
	}
	c.W.Simple("OK")
}

// clientLine formats one client as CLIENT LIST and CLIENT INFO do.
func clientLine(b []byte, cl *Client, now int64) []byte {
	// Redis's letters, in its order, for the states radish has.
	flags := ""
	for _, f := range []struct {
		on bool
		ch string
	}{
		{cl.Monitor, "O"}, {cl.Replica, "S"}, {cl.Master, "M"}, {cl.Subscribed(), "P"}, {cl.Multi >= 0, "x"}, {cl.Blocked, "b"},
		{cl.Track.On, "t"}, {cl.Track.BrokenRedir, "R"}, {cl.Track.BCast, "B"}, {cl.Close, "c"},
		{strings.HasPrefix(cl.LAddr, "/"), "U"}, // a Unix-domain socket's path
		{cl.ReadOnly, "r"}, {cl.NoEvict, "e"}, {cl.NoTouch, "T"},
	} {
		if f.on {
			flags += f.ch
		}
	}
	if flags == "" {
		flags = "N"
	}
	events := "r"
	if cl.OMem > 0 {
		events = "rw"
	}
	m := &cl.Bufs
	return fmt.Appendf(b, "id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d "+
		"sub=%d psub=%d ssub=%d multi=%d qbuf=%d qbuf-free=%d argv-mem=%d multi-mem=%d rbs=%d rbp=%d "+
		"obl=%d oll=%d omem=%d tot-mem=%d events=%s cmd=%s user=%s redir=%d resp=%d lib-name=%s lib-ver=%s\n",
		cl.ID, cl.Addr, cl.LAddr, m.Fd, cl.Name, (now-cl.CreatedMs)/1000, (now-cl.LastMs)/1000, flags, cl.DB,
		cl.Subs, cl.PSubs, cl.SSubs, cl.Multi, cl.QBuf, m.QBufFree, m.ArgvMem, m.MultiMem, m.RBS, m.RBP,
		m.OBL, m.OLL, cl.OMem, cl.QBuf+cl.OMem, events, cl.LastCmd,
		cl.User, cl.Track.redirect(), cl.Proto, cl.LibName, cl.LibVer)
}

// ClientInfo is cl's CLIENT INFO line without its newline (the ACL LOG's
// client-info).
func ClientInfo(cl *Client, now int64) string {
	b := clientLine(nil, cl, now)
	return string(b[:len(b)-1])
}

// ArgsLen is the bytes of a command's arguments (Redis's argv_len_sum:
// CLIENT LIST's argv-mem of the client running it).
func ArgsLen(args [][]byte) int {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	return n
}

// clientType is the client's type as CLIENT LIST TYPE and CLIENT KILL
// TYPE name it (a monitor is a normal client, as Redis shows it).
func clientType(cl *Client) string {
	if cl.Master {
		return "master"
	}
	if cl.Replica {
		return "replica"
	}
	if cl.Subscribed() {
		return "pubsub"
	}
	return "normal"
}

// parseClientType reads a TYPE argument; ok is false for an unknown
// one, with Redis's error written.
func parseClientType(c *Ctx, arg []byte) (string, bool) {
	switch t := strings.ToLower(string(arg)); t {
	case "normal", "master", "pubsub":
		return t, true
	case "replica", "slave":
		return "replica", true
	}
	c.W.Error("ERR Unknown client type '" + string(arg) + "'")
	return "", false
}

func cmdClientInfo(c *Ctx, args [][]byte) {
	var b []byte
	c.Local.Clients(func(cl *Client) {
		if cl.ID == c.Client.ID {
			cl.Bufs.ArgvMem = ArgsLen(args)
			b = clientLine(nil, cl, c.Now)
		}
	})
	c.W.Verbatim("txt", b)
}

// cmdClientList runs on every shard and reports the shard's own clients;
// the replies are concatenated (MergeText).
func cmdClientList(c *Ctx, args [][]byte) {
	var ids map[int64]bool
	typ := ""
	for i := 2; i < len(args); i++ {
		switch opt := strings.ToLower(string(args[i])); {
		case opt == "type" && i+1 < len(args):
			t, ok := parseClientType(c, args[i+1])
			if !ok {
				return
			}
			typ = t
			i++
		case opt == "id" && i+1 < len(args):
			ids = map[int64]bool{}
			for i++; i < len(args); i++ {
				id, ok := num.ParseInt(args[i])
				if !ok || id <= 0 {
					c.W.Error("ERR Invalid client ID")
					return
				}
				ids[id] = true
			}
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	var b []byte
	c.Local.Clients(func(cl *Client) {
		if (ids == nil || ids[cl.ID]) && (typ == "" || typ == clientType(cl)) {
			if c.Client != nil && cl.ID == c.Client.ID { // on the other shards, no client runs it
				cl.Bufs.ArgvMem = ArgsLen(args)
			}
			b = clientLine(b, cl, c.Now)
		}
	})
	c.W.Verbatim("txt", b)
}

// routeClientKill runs CLIENT KILL on every shard: the old form's reply
// is the shard's that had the client, the new form's the sum of the
// counts.
func routeClientKill(args [][]byte) Route {
	if len(args) == 3 {
		return Route{All: true, Merge: MergeFound}
	}
	return Route{All: true, Merge: MergeSum}
}

// cmdClientKill kills this shard's matching clients. The old form CLIENT
// KILL addr:port answers +OK, or Redis's error when this shard has no
// such client; the new form the count (ID, TYPE, USER, ADDR, LADDR,
// SKIPME and Valkey's MAXAGE filters).
func cmdClientKill(c *Ctx, args [][]byte) {
	var id, maxAge int64
	var addr, laddr, typ, user string
	skipMe := true
	if len(args) == 3 {
		addr, skipMe = string(args[2]), false
	} else {
		if len(args)%2 != 0 {
			c.W.Error(errtext.Syntax)
			return
		}
		for i := 2; i < len(args); i += 2 {
			v := string(args[i+1])
			switch strings.ToLower(string(args[i])) {
			case "id":
				n, ok := num.ParseInt(args[i+1])
				if !ok || n <= 0 {
					c.W.Error("ERR client-id should be greater than 0")
					return
				}
				id = n
			case "type":
				t, ok := parseClientType(c, args[i+1])
				if !ok {
					return
				}
				typ = t
			case "user":
				if !c.Server.HasUser(args[i+1]) {
					c.W.Error("ERR No such user '" + v + "'")
					return
				}
				user = v
			case "addr":
				addr = v
			case "laddr":
				laddr = v
			case "maxage":
				n, ok := num.ParseInt(args[i+1])
				if !ok || n <= 0 {
					c.W.Error(errtext.Syntax)
					return
				}
				maxAge = n
			case "skipme":
				switch strings.ToLower(v) {
				case "yes":
					skipMe = true
				case "no":
					skipMe = false
				default:
					c.W.Error(errtext.Syntax)
					return
				}
			default:
				c.W.Error(errtext.Syntax)
				return
			}
		}
	}
	var victims []int64
	c.Local.Clients(func(cl *Client) {
		switch {
		case id != 0 && cl.ID != id,
			user != "" && cl.User != user,
			addr != "" && cl.Addr != addr,
			laddr != "" && cl.LAddr != laddr,
			typ != "" && clientType(cl) != typ,
			maxAge != 0 && (c.Now-cl.CreatedMs)/1000 < maxAge,
			skipMe && c.Client != nil && cl.ID == c.Client.ID:
			return
		}
		victims = append(victims, cl.ID)
	})
	for _, v := range victims {
		c.Local.Kill(v)
	}
	if len(args) == 3 {
		if len(victims) == 0 {
			c.W.Error("ERR No such client")
		} else {
			c.W.Simple("OK")
		}
		return
	}
	c.W.Int(int64(len(victims)))
}

func cmdClientReply(c *Ctx, args [][]byte) {
	switch strings.ToLower(string(args[2])) {
	case "on":
		c.Client.Reply = ReplyOn
		c.W.Simple("OK")
	case "off":
		c.Client.Reply = ReplyOff
	case "skip":
		if c.Client.Reply == ReplyOn {
			c.Client.Reply = ReplySkip
		}
	default:
		c.W.Error(errtext.Syntax)
	}
}

func onOff(c *Ctx, arg []byte, set func(bool)) {
	switch strings.ToLower(string(arg)) {
	case "on":
		set(true)
	case "off":
		set(false)
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	c.W.Simple("OK")
}

func cmdClientNoEvict(c *Ctx, args [][]byte) {
	onOff(c, args[2], func(v bool) { c.Client.NoEvict = v })
}

// cmdClientCapa is Valkey 8's CLIENT CAPA: "redirect" is the one
// capability it knows; the others are ignored, as there.
func cmdClientCapa(c *Ctx, args [][]byte) {
	for _, a := range args[2:] {
		if strings.EqualFold(string(a), "redirect") {
			c.Client.Redirect = true
		}
	}
	c.W.OK()
}

func cmdClientNoTouch(c *Ctx, args [][]byte) {
	onOff(c, args[2], func(v bool) { c.Client.NoTouch = v })
}

// clientHelp is Redis 7.0's CLIENT HELP text.
var clientHelp = []string{
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
}

func cmdClientHelp(c *Ctx, args [][]byte) { help(c, "CLIENT", clientHelp) }

// help writes a HELP reply the way Redis's addReplyHelp does.
func help(c *Ctx, cmd string, lines []string) {
	c.W.Array(len(lines) + 3)
	c.W.Simple(cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.W.Simple(l)
	}
	c.W.Simple("HELP")
	c.W.Simple("    Prints this help.")
}

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]; it runs on every
// shard and the one owning the client answers 1 (MergeSum).
func cmdClientUnblock(c *Ctx, args [][]byte) {
	id, ok := kvArgInt(c, args[2])
	if !ok {
		return
	}
	withError := false
	if len(args) == 4 {
		switch strings.ToLower(string(args[3])) {
		case "timeout":
		case "error":
			withError = true
		default:
			c.W.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	} else if len(args) > 4 {
		c.W.Error(errtext.SubSyntax(args[0], args[1]))
		return
	}
	if c.Local.Unblock(id, withError) {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

// cmdClientPause is CLIENT PAUSE timeout [WRITE|ALL]: every shard holds
// back the commands it pauses until the timeout passes (shard/pause.go).
func cmdClientPause(c *Ctx, args [][]byte) {
	ms, ok := num.ParseInt(args[2])
	if !ok {
		c.W.Error(errtext.TimeoutNotInt)
		return
	}
	if ms < 0 {
		c.W.Error(errtext.TimeoutNegative)
		return
	}
	all := true
	if len(args) == 4 {
		switch strings.ToLower(string(args[3])) {
		case "write":
			all = false
		case "all":
		default:
			c.W.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	} else if len(args) > 4 {
		c.W.Error(errtext.Syntax)
		return
	}
	c.Server.Pause(c.Now+ms, all)
	c.W.Simple("OK")
}

func cmdClientUnpause(c *Ctx, args [][]byte) {
	c.Server.Unpause()
	c.W.Simple("OK")
}
