package command

import (
	"slices"
	"strings"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// Client-side caching: CLIENT TRACKING, CACHING, GETREDIR and
// TRACKINGINFO. A client's tracking state lives in its Client (Tracking);
// what it makes the server remember and send (the keys it reads, the
// invalidations, the BCAST prefixes every shard must know) is the shard's
// business (shard/tracking.go), told through Local.Tracked.

// Tracking is a client's CLIENT TRACKING state, as Redis's client flags
// hold it.
type Tracking struct {
	On, BCast, OptIn, OptOut, NoLoop bool
	// Caching is CLIENT CACHING's YES (OPTIN) or NO (OPTOUT), for the
	// client's next command (or MULTI ... EXEC); the shard clears it.
	Caching bool
	// BrokenRedir: an invalidation found the redirect client gone.
	BrokenRedir bool
	Redirect    int64    // 0 when none
	Prefixes    []string // BCAST's, sorted; "" when BCAST had none
	// Reads: the client's next command remembers the keys it reads
	// (default mode, as OPTIN and OPTOUT with Caching allow). Self: the
	// invalidations its own writes cause go to itself, right after the
	// write's reply, as Redis sends them (default mode, no REDIRECT; none
	// under NOLOOP). Kept by Set.
	Reads, Self bool
}

// Set recomputes Reads and Self after a change.
func (t *Tracking) Set() {
	t.Reads = t.On && !t.BCast && (!t.OptIn || t.Caching) && (!t.OptOut || !t.Caching)
	t.Self = t.On && !t.BCast && t.Redirect == 0
}

// Off disables tracking, as Redis's disableTracking.
func (t *Tracking) Off() { *t = Tracking{Prefixes: t.Prefixes[:0]} }

var trackingSubs = []*Spec{
	func() *Spec {
		s := clientSub("tracking", -3, 0, cmdClientTracking, "Enable or disable server assisted client side caching support")
		s.Since, s.Complexity = "6.0.0", "O(1). Some options may introduce additional complexity."
		opt := func(name string) Arg {
			return Arg{Name: name, Type: "pure-token", Token: strings.ToUpper(name), Flags: ArgOptional}
		}
		s.Args = []Arg{
			{Name: "status", Type: "oneof", Args: []Arg{
				{Name: "on", Type: "pure-token", Token: "ON"},
				{Name: "off", Type: "pure-token", Token: "OFF"},
			}},
			{Name: "client-id", Type: "integer", Token: "REDIRECT", Flags: ArgOptional},
			{Name: "prefix", Type: "string", Token: "PREFIX", Flags: ArgOptional | ArgMultiple | ArgMultipleToken},
			opt("bcast"), opt("optin"), opt("optout"), opt("noloop"),
		}
		return s
	}(),
	func() *Spec {
		s := clientSub("caching", 3, 0, cmdClientCaching, "Instruct the server about tracking or not keys in the next request")
		s.Since = "6.0.0"
		s.Args = []Arg{{Name: "mode", Type: "oneof", Args: []Arg{
			{Name: "yes", Type: "pure-token", Token: "YES"},
			{Name: "no", Type: "pure-token", Token: "NO"},
		}}}
		return s
	}(),
	func() *Spec {
		s := clientSub("getredir", 2, 0, cmdClientGetRedir, "Get tracking notifications redirection client ID if any")
		s.Since = "6.0.0"
		return s
	}(),
	func() *Spec {
		s := clientSub("trackinginfo", 2, 0, cmdClientTrackingInfo,
			"Return information about server assisted client side caching for the current connection")
		s.Since = "6.2.0"
		return s
	}(),
}

// cmdClientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...]
// [BCAST] [OPTIN] [OPTOUT] [NOLOOP], with Redis 7.0's checks in its order.
func cmdClientTracking(c *Ctx, args [][]byte) {
	var redir int64
	var bcast, optin, optout, noloop bool
	var prefixes []string
	for j := 3; j < len(args); j++ {
		more := j < len(args)-1
		switch opt := strings.ToLower(string(args[j])); {
		case opt == "redirect" && more:
			j++
			if redir != 0 {
				c.W.Error("ERR A client can only redirect to a single other client")
				return
			}
			id, ok := num.ParseInt(args[j])
			if !ok {
				c.W.Error(errtext.NotInt)
				return
			}
			if !c.Local.ClientExists(id) {
				c.W.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			redir = id
		case opt == "bcast":
			bcast = true
		case opt == "optin":
			optin = true
		case opt == "optout":
			optout = true
		case opt == "noloop":
			noloop = true
		case opt == "prefix" && more:
			j++
			prefixes = append(prefixes, string(args[j]))
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	t := &c.Client.Track
	switch strings.ToLower(string(args[2])) {
	case "on":
	case "off":
		if t.On {
			old := slices.Clone(t.Prefixes)
			t.Off()
			c.Local.Tracked(c.Client, old)
		}
		c.W.OK()
		return
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	switch {
	case !bcast && len(prefixes) > 0:
		c.W.Error("ERR PREFIX option requires BCAST mode to be enabled")
		return
	case t.On && t.BCast != bcast:
		c.W.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, " +
			"and then re-enabling it with a different mode.")
		return
	case bcast && (optin || optout):
		c.W.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
		return
	case optin && optout:
		c.W.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
		return
	case optin && t.OptOut || optout && t.OptIn:
		c.W.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, " +
			"and then re-enabling it with a different mode.")
		return
	}
	if bcast {
		if msg := prefixOverlap(t.Prefixes, prefixes); msg != "" {
			c.W.Error(msg)
			return
		}
	}
	old := slices.Clone(t.Prefixes)
	t.On, t.BCast, t.OptIn, t.OptOut, t.NoLoop, t.BrokenRedir = true, bcast, optin, optout, noloop, false
	t.Redirect = redir
	if bcast {
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			if !slices.Contains(t.Prefixes, p) {
				t.Prefixes = append(t.Prefixes, p)
			}
		}
		slices.Sort(t.Prefixes)
	}
	t.Set()
	c.Local.Tracked(c.Client, old)
	c.W.OK()
}

// prefixOverlap is Redis's error for a new BCAST prefix that is a prefix
// of one the client has or of another new one (or has one as its
// prefix), or "". Unlike Redis 7.0, which after an overlap among the new
// prefixes past the first also enables them and answers twice, a refusal
// here is one error and changes nothing.
func prefixOverlap(have, add []string) string {
	overlaps := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	for i, p := range add {
		for _, h := range have {
			if overlaps(p, h) {
				return "ERR Prefix '" + p + "' overlaps with an existing prefix '" + h +
					"'. Prefixes for a single client must not overlap."
			}
		}
		for _, q := range add[i+1:] {
			if overlaps(p, q) {
				return "ERR Prefix '" + p + "' overlaps with another provided prefix '" + q +
					"'. Prefixes for a single client must not overlap."
			}
		}
	}
	return ""
}

// cmdClientCaching is CLIENT CACHING YES|NO.
func cmdClientCaching(c *Ctx, args [][]byte) {
	t := &c.Client.Track
	if !t.On {
		c.W.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode " +
			"with OPTIN or OPTOUT mode enabled")
		return
	}
	switch strings.ToLower(string(args[2])) {
	case "yes":
		if !t.OptIn {
			c.W.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case "no":
		if !t.OptOut {
			c.W.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	t.Caching = true
	t.Set()
	c.W.OK()
}

// redirect is GETREDIR's answer: -1 when tracking is off, 0 when on
// without a redirect.
func (t *Tracking) redirect() int64 {
	if !t.On {
		return -1
	}
	return t.Redirect
}

func cmdClientGetRedir(c *Ctx, args [][]byte) { c.W.Int(c.Client.Track.redirect()) }

func cmdClientTrackingInfo(c *Ctx, args [][]byte) {
	t := &c.Client.Track
	flags := []string{"off"}
	if t.On {
		flags[0] = "on"
	}
	if t.BCast {
		flags = append(flags, "bcast")
	}
	if t.OptIn {
		flags = append(flags, "optin")
		if t.Caching {
			flags = append(flags, "caching-yes")
		}
	}
	if t.OptOut {
		flags = append(flags, "optout")
		if t.Caching {
			flags = append(flags, "caching-no")
		}
	}
	if t.NoLoop {
		flags = append(flags, "noloop")
	}
	if t.BrokenRedir {
		flags = append(flags, "broken_redirect")
	}
	w := c.W
	w.Map(3)
	w.BulkString("flags")
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("redirect")
	w.Int(t.redirect())
	w.BulkString("prefixes")
	w.Array(len(t.Prefixes))
	for _, p := range t.Prefixes {
		w.BulkString(p)
	}
}
