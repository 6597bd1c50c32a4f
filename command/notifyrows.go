package command

import (
	"strconv"
	"strings"
)

// The events of the bitmap, HyperLogLog, geo, SORT, RESTORE and pop
// writes, as Redis 7.0 emits them: SETBIT and a BITFIELD that set or
// incremented "setbit", BITOP "set" on its destination, PFADD and PFMERGE
// "pfadd", GEOADD "zadd" (Redis runs it as a ZADD), the geo stores and
// SORT ... STORE their own names, RESTORE "restore", the blocking and
// multi-key pops their pop on the key they popped. Like every row's, they
// are emitted only when the command changed data, so a SETBIT of the bit
// already set, a PFADD that changed no register and a GEOADD that moved
// nothing emit none.

func init() {
	keyEvents["setbit"] = each("setbit", '$')
	keyEvents["bitfield"] = each("setbit", '$')
	keyEvents["bitop"] = store("set", '$')
	keyEvents["pfadd"] = each("pfadd", '$')
	keyEvents["pfmerge"] = each("pfadd", '$')
	keyEvents["geoadd"] = each("zadd", 'z')
	keyEvents["georadius"] = store("georadiusstore", 'z')
	keyEvents["georadiusbymember"] = store("georadiusstore", 'z')
	keyEvents["geosearchstore"] = store("geosearchstore", 'z')
	keyEvents["sort"] = store("sortstore", 'l')
	// The blocking and multi-key pops: the event on the key popped.
	keyEvents["blpop"] = &keyEvent{event: "lpop", class: 'l', popped: true}
	keyEvents["brpop"] = &keyEvent{event: "rpop", class: 'l', popped: true}
	keyEvents["bzpopmin"] = &keyEvent{event: "zpopmin", class: 'z', popped: true}
	keyEvents["bzpopmax"] = &keyEvent{event: "zpopmax", class: 'z', popped: true}
	keyEvents["lmpop"] = popEvents(2, 'l')
	keyEvents["blmpop"] = popEvents(3, 'l')
	keyEvents["zmpop"] = popEvents(2, 'z')
	keyEvents["bzmpop"] = popEvents(3, 'z')
	keyEvents["blmove"] = keyEvents["lmove"]
	keyEvents["brpoplpush"] = keyEvents["rpoplpush"]
	// A TTL in the past: the key it replaced is "del", as Redis.
	keyEvents["restore"] = &keyEvent{noNew: true, delOnly: true, fn: restoreEvents}
}

// restoreEvents: RESTORE's key is always "new" (Redis deletes a key it
// replaces without an event and adds it again), then "restore".
func restoreEvents(args [][]byte, _ int, emit EmitEvent) {
	emit('n', "new", args[1])
	emit('g', "restore", args[1])
}

// popEvents: the pop of LMPOP, BLMPOP, ZMPOP and BZMPOP from the key it
// popped, named by the direction after the keys, args[at+numkeys]
// (numkeys is args[at-1]): LEFT "lpop", RIGHT "rpop", MIN "zpopmin", MAX
// "zpopmax".
func popEvents(at int, class byte) *keyEvent {
	return &keyEvent{popped: true, fn: func(args [][]byte, i int, emit EmitEvent) {
		n, err := strconv.Atoi(string(args[at-1]))
		if err != nil || at+n >= len(args) {
			return
		}
		switch strings.ToUpper(string(args[at+n])) {
		case "LEFT":
			emit(class, "lpop", args[i])
		case "RIGHT":
			emit(class, "rpop", args[i])
		case "MIN":
			emit(class, "zpopmin", args[i])
		case "MAX":
			emit(class, "zpopmax", args[i])
		}
	}}
}
