package command

// The events of the bitmap, HyperLogLog, geo, SORT and RESTORE writes, as Redis
// 7.0 emits them: SETBIT and a BITFIELD that set or incremented "setbit",
// BITOP "set" on its destination, PFADD and PFMERGE "pfadd", GEOADD
// "zadd" (Redis runs it as a ZADD), the geo stores and SORT ... STORE
// their own names, RESTORE "restore". Like every row's, they are emitted only when the
// command changed data, so a SETBIT of the bit already set, a PFADD
// that changed no register and a GEOADD that moved nothing emit none.

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
	// A TTL in the past: the key it replaced is "del", as Redis.
	keyEvents["restore"] = &keyEvent{noNew: true, delOnly: true, fn: restoreEvents}
}

// restoreEvents: RESTORE's key is always "new" (Redis deletes a key it
// replaces without an event and adds it again), then "restore".
func restoreEvents(args [][]byte, _ int, emit EmitEvent) {
	emit('n', "new", args[1])
	emit('g', "restore", args[1])
}
