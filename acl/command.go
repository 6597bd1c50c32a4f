package acl

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
)

// Exec is the ACL command's context: what a subcommand needs besides the
// registry.
type Exec struct {
	W *resp.Writer
	// WhoAmI is the connection's user name.
	WhoAmI string
	// File is aclfile ("": none).
	File string
	Now  int64 // unix ms
}

// Run runs ACL <subcommand> (args[0] is "ACL"; the command table checked
// the subcommand's arity) and writes its one reply, as Redis 7.0's
// aclCommand.
func (r *Registry) Run(e *Exec, args [][]byte) {
	w := e.W
	sub := strings.ToLower(string(args[1]))
	n := len(args)
	switch {
	case sub == "setuser":
		ops := make([]string, n-3)
		for i, a := range args[3:] {
			ops[i] = string(a)
		}
		if err := r.SetUser(string(args[2]), ops); err != nil {
			w.Error(err.Error())
			return
		}
		w.OK()
	case sub == "deluser":
		names := make([]string, n-2)
		for i, a := range args[2:] {
			names[i] = string(a)
		}
		d, err := r.DelUser(names)
		if err != nil {
			w.Error(err.Error())
			return
		}
		w.Int(int64(d))
	case sub == "getuser":
		u := r.Current().User(args[2])
		if u == nil {
			w.Null()
			return
		}
		u.WriteGetUser(w)
	case sub == "list" || sub == "users":
		us := r.Current().Users()
		w.Array(len(us))
		for _, u := range us {
			if sub == "users" {
				w.BulkString(u.name)
			} else {
				w.BulkString("user " + u.name + " " + u.Describe())
			}
		}
	case sub == "whoami":
		w.BulkString(e.WhoAmI)
	case e.File == "" && (sub == "load" || sub == "save"):
		w.Error("ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")
	case sub == "load":
		if err := r.LoadFile(e.File); err != nil {
			w.Error("ERR " + err.Error())
			return
		}
		w.OK()
	case sub == "save":
		if err := r.SaveFile(e.File); err != nil {
			w.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
			return
		}
		w.OK()
	case sub == "cat" && n == 2:
		w.Array(len(Categories))
		for _, c := range Categories {
			w.BulkString(c)
		}
	case sub == "cat" && n == 3:
		names, ok := CategoryCommands(string(args[2]))
		if !ok {
			w.Error(fmt.Sprintf("ERR Unknown category '%.128s'", args[2]))
			return
		}
		w.Array(len(names))
		for _, s := range names {
			w.BulkString(s)
		}
	case sub == "genpass" && n <= 3:
		bits := int64(256)
		if n == 3 {
			v, ok := num.ParseInt(args[2])
			if !ok {
				w.Error(errtext.NotInt)
				return
			}
			bits = v
		}
		if bits <= 0 || bits > 4096 {
			w.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
			return
		}
		var raw [4096 / 8]byte
		rand.Read(raw[:])
		w.BulkString(hex.EncodeToString(raw[:])[:(bits+3)/4])
	case sub == "log" && n <= 3:
		count := 10
		if n == 3 {
			if strings.EqualFold(string(args[2]), "reset") {
				r.Log.Reset()
				w.OK()
				return
			}
			v, ok := num.ParseInt(args[2])
			if !ok {
				w.Error(errtext.NotInt)
				return
			}
			count = int(min(max(v, 0), 1<<30))
		}
		r.Log.Write(w, count, e.Now)
	case sub == "dryrun":
		r.dryRun(w, args)
	case sub == "help" && n == 2:
		w.Array(len(help))
		for _, l := range help {
			w.Simple(l)
		}
	default:
		w.Error(errtext.SubSyntax(args[0], args[1]))
	}
}

func (r *Registry) dryRun(w *resp.Writer, args [][]byte) {
	u := r.Current().User(args[2])
	if u == nil {
		w.Error(fmt.Sprintf("ERR User '%s' not found", args[2]))
		return
	}
	cmd := args[3:]
	spec := command.Lookup(cmd[0])
	if spec != nil && len(spec.Sub) > 0 && len(cmd) > 1 {
		spec = spec.LookupSub(cmd[1])
	}
	if spec == nil {
		w.Error(fmt.Sprintf("ERR Command '%s' not found", cmd[0]))
		return
	}
	if !command.CheckArity(spec, len(cmd)) {
		w.Error(fmt.Sprintf("ERR wrong number of arguments for '%s' command", spec.Name))
		return
	}
	switch why, at := u.Check(spec, cmd); why {
	case OK:
		w.OK()
	case DeniedCmd:
		w.BulkString("This user has no permissions to run the '" + spec.Name + "' command")
	case DeniedKey:
		w.BulkString("This user has no permissions to access the '" + string(cmd[at]) + "' key")
	default:
		w.BulkString("This user has no permissions to access the '" + string(cmd[at]) + "' channel")
	}
}

var help = []string{
	"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
	"HELP",
	"    Prints this help.",
}
