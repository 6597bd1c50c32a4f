package shard

import (
	"strings"
	"sync"

	"github.com/radish-kv/radish/acl"
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/pubsub"
)

// ACL users (package acl) as the shards apply them.
//
// The group holds one acl.Registry; every change publishes a new
// immutable acl.Snapshot, so every shard sees the same users and a change
// is atomic. A connection keeps its user and the snapshot it took it
// from. Per command, dispatch loads the registry's snapshot (one atomic
// read); when it is not the connection's, the connection takes its user
// again from it (rebind), and then the check is User.Check: a flag test
// for the default user. A change also wakes every shard, which at the
// start of its turn rebinds each of its connections: one whose user was
// deleted, or replaced by ACL LOAD, is closed, as Redis frees it, and so
// is a subscriber whose user may no longer use one of its channels.
//
// Commands are checked where their connection is, before they are
// placed, so a hop or a txn part is never checked again; inside MULTI at
// queue time (a refusal aborts the EXEC) and again at EXEC, as Redis; a
// script's redis.call in the script runtime (script.Host.Permit).

// aclState is the group's ACL: its registry and what it took from the
// configuration.
type aclState struct {
	reg *acl.Registry
	mu  sync.Mutex // orders applying requirepass
}

// initACL builds the users at start: requirepass as the default user's
// password, then the config file's user lines or the aclfile (not both,
// as Redis).
func (g *Group) initACL(c *config.Snapshot) error {
	r := acl.NewRegistry(c.RequirePass)
	r.SetPubsubDefault(c.ACLPubsubAllChannels)
	r.Log.SetMax(c.ACLLogMaxLen)
	g.acl.reg = r
	if c.ACLFile != "" && len(c.Users) > 0 {
		return errACLBoth
	}
	if err := r.LoadConfigUsers(c.Users); err != nil {
		return err
	}
	if c.ACLFile != "" {
		if err := r.LoadFile(c.ACLFile); err != nil {
			return aclStartError{err.Error()}
		}
	}
	r.Changed = func() {
		for _, s := range g.shards {
			s.drv.Wake()
		}
	}
	return nil
}

var errACLBoth = aclStartError{"Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both."}

type aclStartError struct{ text string }

func (e aclStartError) Error() string {
	return "Aborting Redis startup because of ACL errors: " + e.text
}

// aclConfigSet applies what CONFIG SET changed of the ACL's parameters:
// requirepass becomes the default user's password, as Redis.
func (g *Group) aclConfigSet(pairs [][2]string) {
	c := g.conf.Snapshot()
	g.acl.reg.SetPubsubDefault(c.ACLPubsubAllChannels)
	g.acl.reg.Log.SetMax(c.ACLLogMaxLen)
	for _, p := range pairs {
		if strings.EqualFold(p[0], "requirepass") {
			g.acl.mu.Lock()
			g.acl.reg.SetDefaultPassword(g.conf.Snapshot().RequirePass)
			g.acl.mu.Unlock()
			return
		}
	}
}

// ACL implements command.Server.
func (g *Group) ACL(c *command.Ctx, args [][]byte) {
	who := "default"
	if c.Client != nil {
		who = c.Client.User
	}
	g.acl.reg.Run(&acl.Exec{W: c.W, WhoAmI: who, File: g.conf.Snapshot().ACLFile, Now: c.Now}, args)
}

// HasUser implements command.Server.
func (g *Group) HasUser(name []byte) bool { return g.acl.reg.Current().User(name) != nil }

// DefaultNoPass implements command.Server.
func (g *Group) DefaultNoPass() bool {
	u := g.acl.reg.Current().Default()
	return u.Enabled() && u.NoPass()
}

// Authenticate implements command.Local.
func (s *Shard) Authenticate(cl *command.Client, cmd, user, pass []byte) bool {
	snap := s.group.acl.reg.Current()
	c := s.trk.ids[cl.ID]
	if user == nil {
		u := snap.Default()
		cl.User, cl.Authed = u.Name(), u.Enabled() && u.NoPass()
		if c != nil {
			c.user, c.aclAt = u, snap
		}
		return cl.Authed
	}
	u := snap.Authenticate(user, pass)
	if u == nil {
		ctx := acl.CtxToplevel
		if c != nil && c.inMulti() {
			ctx = acl.CtxMulti
		}
		s.group.acl.reg.Log.Add(acl.DeniedAuth, ctx, string(cmd), string(user), command.ClientInfo(cl, s.now), s.now)
		return false
	}
	cl.User, cl.Authed = u.Name(), true
	if c != nil {
		c.user, c.aclAt = u, snap
	}
	return true
}

// checked is the user c's scripts check their calls with: nil (no check)
// for the master link.
func (c *conn) checked() *acl.User {
	if c.cl.Master {
		return nil
	}
	return c.user
}

// access is the command.UserAccess of the reader's user, nil for none.
func (r reader) access() command.UserAccess {
	if r.user == nil {
		return nil
	}
	return r.user
}

// openACL gives a new connection the default user.
func (s *Shard) openACL(c *conn) {
	snap := s.group.acl.reg.Current()
	u := snap.Default()
	c.user, c.aclAt = u, snap
	c.cl.User, c.cl.Authed = u.Name(), u.Enabled() && u.NoPass()
}

// sweepACL rebinds every connection when the users changed since the
// last turn (see the comment at the top).
func (s *Shard) sweepACL() {
	snap := s.group.acl.reg.Current()
	if snap == s.aclSeen {
		return
	}
	s.aclSeen = snap
	for _, c := range s.conns {
		if c.aclAt != snap && !c.closing {
			s.rebind(c, snap)
		}
	}
}

// rebind takes c's user again from snap. It closes c, and reports false,
// when the user is gone (deleted, or replaced by ACL LOAD) or may no
// longer use a channel c is subscribed to.
func (s *Shard) rebind(c *conn, snap *acl.Snapshot) bool {
	u := snap.UserNamed(c.cl.User)
	if u == nil || u.Serial() != c.user.Serial() || c.subscribed() && !s.channelsAllowed(c, u) {
		s.aclKill(c)
		return false
	}
	c.user, c.aclAt = u, snap
	return true
}

// channelsAllowed reports whether u may keep every subscription of c.
func (s *Shard) channelsAllowed(c *conn, u *acl.User) bool {
	for _, k := range []pubsub.Kind{pubsub.Channel, pubsub.Shard, pubsub.Pattern} {
		for _, name := range s.ps.reg.Names(c, k) {
			if !u.CheckChannel([]byte(name), k == pubsub.Pattern) {
				return false
			}
		}
	}
	return true
}

// aclKill closes c once the replies before are out, as CLIENT KILL.
func (s *Shard) aclKill(c *conn) {
	c.cl.Close = true
	if c.blocked != nil {
		s.withdraw(c, c.blocked)
		s.closeConn(c)
	}
	s.closeIfDone(c)
}

// permit checks that c's user may run spec with args, and otherwise
// answers Redis's -NOPERM, records it in the ACL LOG and refuses the
// MULTI it is queued in. dispatch calls it for users that do not allow
// everything.
func (s *Shard) permit(c *conn, spec *command.Spec, args [][]byte) bool {
	why, at := c.user.Check(spec, args)
	if why == acl.OK || c.cl.Master {
		// The master link runs every command, as Redis's master client,
		// which has no user.
		return true
	}
	ctx := acl.CtxToplevel
	if c.inMulti() {
		ctx = acl.CtxMulti
	}
	c.cl.LastCmd = spec.Name
	s.aclLog(&c.cl, c.user, why, ctx, spec, args, at)
	s.refuseCmd(c, spec, noPerm(why, spec))
	return false
}

func (s *Shard) aclLog(cl *command.Client, u *acl.User, why acl.Reason, ctx string, spec *command.Spec, args [][]byte, at int) {
	obj := spec.Name
	if why != acl.DeniedCmd {
		obj = string(args[at])
	}
	s.group.acl.reg.Log.Add(why, ctx, obj, u.Name(), command.ClientInfo(cl, s.now), s.now)
}

// noPerm is Redis 7.0's -NOPERM text for a refused command.
func noPerm(why acl.Reason, spec *command.Spec) string {
	switch why {
	case acl.DeniedCmd:
		return "NOPERM this user has no permissions to run the '" + spec.Name + "' command"
	case acl.DeniedKey:
		return "NOPERM this user has no permissions to access one of the keys used as arguments"
	}
	return "NOPERM this user has no permissions to access one of the channels used as arguments"
}

// execDenied is the reply of a queued command its user may no longer run
// at EXEC (the ACL changed since it was queued), logged as Redis does; ""
// when it may run.
func (s *Shard) execDenied(c *conn, spec *command.Spec, args [][]byte) string {
	why, at := c.user.Check(spec, args)
	if why == acl.OK {
		return ""
	}
	s.aclLog(&c.cl, c.user, why, acl.CtxMulti, spec, args, at)
	reason := "no permission to access one of the channels used as arguments"
	switch why {
	case acl.DeniedCmd:
		reason = "no permission to execute the command or subcommand"
	case acl.DeniedKey:
		reason = "no permission to touch the specified keys"
	}
	return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. " +
		"This command is no longer allowed for the following reason: " + reason
}

// scriptPermit is script.Host's Permit for a script run by user u for
// the client cl: "" when u may run spec with args, else Redis 7.0's
// error, logged.
func (s *Shard) scriptPermit(u *acl.User, cl *command.Client, spec *command.Spec, args [][]byte) string {
	if u == nil {
		return ""
	}
	why, at := u.Check(spec, args)
	if why == acl.OK {
		return ""
	}
	s.aclLog(cl, u, why, acl.CtxLua, spec, args, at)
	switch why {
	case acl.DeniedCmd:
		return "ERR The user executing the script can't run this command or subcommand"
	case acl.DeniedKey:
		return "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments"
	}
	return "ERR The user executing the script can't publish to the channel mentioned in the command"
}
