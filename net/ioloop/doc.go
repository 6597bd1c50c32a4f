// Package ioloop is the network driver of a shard: it accepts TCP
// connections (TCP_NODELAY; keepalive as Options.KeepAlive says), receives
// bytes into per-connection input buffers, sends the bytes a handler
// appended to per-connection output buffers, and reports what happened to
// a Handler. It knows nothing of RESP, commands or the engine.
//
// Nouns:
//   - Driver: one event loop instance (io_uring ring or epoll set) owned by
//     one goroutine, the loop goroutine. NewUring must be called on a
//     goroutine locked to its OS thread (runtime.LockOSThread) and every
//     method except Wake must then be called from that same goroutine.
//   - ConnID: a connection slot index plus a generation. When a connection
//     closes its slot's generation changes, so an old ConnID is stale and
//     every method ignores it (Input returns nil, Output returns a scratch
//     buffer that is thrown away).
//   - Wake: a loop sleeping in Poll is woken through its eventfd (Wake, any
//     goroutine), or, from another io_uring driver's loop, by a MSG_RING
//     completion that loop's next Poll submits (WakeOther); a loop that
//     is awake is told by a flag alone, with no system call.
//   - Turn: one call to Poll. It submits everything queued since the last
//     turn (sends, receives, closes), waits once for at least one event or
//     the timeout, and dispatches the events to the Handler. The io_uring
//     driver does all of that in one io_uring_enter system call.
//     Flush submits what is queued without waiting or dispatching, for a
//     loop about to do long work before its next Poll; Waiting tells that
//     loop, with no system call, that its next Poll has input (io_uring:
//     the ring's TASKRUN flag and completion queue; epoll: only a Wake).
//   - Fsync: an fdatasync of a file the loop asks for (the AOF under
//     appendfsync always): the io_uring driver submits it with the turn's
//     requests, a kernel worker runs it, and its done func runs in a later
//     Poll; epoll cannot, and says so.
//
// What it never does: start goroutines, parse requests, allocate per request
// in steady state, call the Handler outside Poll (and Shutdown).
//
// What must stay true:
//   - Memory the kernel reads or writes for an in-flight io_uring request
//     (input buffer tail, output buffer being sent, the eventfd word) is
//     pinned (runtime.Pinner) and is neither moved, reused nor released
//     until that request's completion has been reaped.
//   - A connection slot is only reused after every request in flight for it
//     has completed, and every request carries (op, slot, generation) in its
//     user_data, so a late completion can never touch another connection.
//   - OnClose is called exactly once per OnOpen (or Take), and after it the
//     ConnID is dead, unless Release hands the connection over first: then
//     it is dead when Release's callback runs, and no OnClose follows.
//   - Release hands over the socket only once nothing is in flight for it
//     and its output is sent, with every received, unconsumed byte: a
//     connection moved to another driver (Take) loses and reorders
//     nothing.
//   - Bytes appended to Output leave in order; Close sends them before the
//     socket is closed, Abort drops them (an output buffer limit).
package ioloop
