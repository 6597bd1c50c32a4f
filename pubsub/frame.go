package pubsub

import "github.com/radish-kv/radish/net/resp"

// AppendMessage appends to b what a subscriber of kind (Channel or Shard)
// receives for msg published on channel: ["message" or "smessage",
// channel, msg], a RESP3 push or a RESP2 array.
func AppendMessage(b []byte, proto int, kind Kind, channel, msg []byte) []byte {
	return AppendPayload(AppendMessageHead(b, proto, kind, channel), msg)
}

// AppendMessageHead appends the part of AppendMessage's frame before msg,
// the same for every message on channel: a run of messages to one channel
// writes it once and copies it before each payload.
func AppendMessageHead(b []byte, proto int, kind Kind, channel []byte) []byte {
	w := resp.Writer{B: b, Proto: proto}
	w.Push(3)
	if kind == Shard {
		w.BulkString("smessage")
	} else {
		w.BulkString("message")
	}
	w.Bulk(channel)
	return w.B
}

// AppendPayload appends the rest of a message frame after its head: msg
// as a bulk string.
func AppendPayload(b []byte, msg []byte) []byte {
	w := resp.Writer{B: b}
	w.Bulk(msg)
	return w.B
}

// AppendPMessage appends what a subscriber of pattern receives for msg
// published on channel: ["pmessage", pattern, channel, msg].
func AppendPMessage(b []byte, proto int, pattern string, channel, msg []byte) []byte {
	w := resp.Writer{B: b, Proto: proto}
	w.Push(4)
	w.BulkString("pmessage")
	w.BulkString(pattern)
	w.Bulk(channel)
	w.Bulk(msg)
	return w.B
}

// AppendSubscription appends the confirmation of one (un)subscription:
// [verb, name, count], where a nil name is written as a null bulk (an
// UNSUBSCRIBE of nothing).
func AppendSubscription(b []byte, proto int, verb string, name []byte, null bool, count int) []byte {
	w := resp.Writer{B: b, Proto: proto}
	w.Push(3)
	w.BulkString(verb)
	if null {
		w.Null()
	} else {
		w.Bulk(name)
	}
	w.Int(int64(count))
	return w.B
}
