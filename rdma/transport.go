package rdma

// Transport carries a full sync's bulk bytes.
type Transport interface {
	// Name is the transport's name in logs.
	Name() string
	// Send writes b whole to fd, a connected stream socket (blocking or
	// not), and returns once the kernel no longer reads b. It reports
	// how it sent: zero-copy or copied.
	Send(fd int, b []byte) (Sent, error)
}

// Sent says how a Send went.
type Sent struct {
	Bytes int
	// ZeroCopy is the bytes sent with MSG_ZEROCOPY whose pages the
	// kernel did not copy.
	ZeroCopy int
	// Copied: a zero-copy send was tried and the kernel copied it
	// (loopback, a device without scatter-gather): the rest went by
	// plain writes.
	Copied bool
}
