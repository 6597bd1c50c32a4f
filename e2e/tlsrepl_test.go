package e2e

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// replicaTLSArgs are the arguments of a replica whose links to its
// primary speak TLS with p's client certificate and CA.
func replicaTLSArgs(p *pki) []string {
	return []string{"--tls-replication", "yes", "--tls-cert-file", p.serverCert, "--tls-key-file", p.serverKey,
		"--tls-client-cert-file", p.clientCert, "--tls-client-key-file", p.clientKey, "--tls-ca-cert-file", p.caFile}
}

// tlsWrites writes n keys of several types through c.
func tlsWrites(t *testing.T, c *redis.Client, tag string, n int) {
	t.Helper()
	ctx := context.Background()
	p := c.Pipeline()
	for i := range n {
		k := tag + ":" + strconv.Itoa(i)
		switch i % 4 {
		case 0:
			p.Set(ctx, k, strings.Repeat("v", i%300), 0)
		case 1:
			p.HSet(ctx, k, "f", i, "g", tag)
		case 2:
			p.ZAdd(ctx, k, redis.Z{Score: float64(i), Member: tag})
		case 3:
			p.RPush(ctx, k, i, tag, i+1)
		}
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

// tlsDigest is DEBUG DIGEST of a TLS-only server.
func tlsDigest(t *testing.T, s *tlsServer) string {
	t.Helper()
	out, err := s.tlsCli(true, "DEBUG", "DIGEST")
	if err != nil {
		t.Fatalf("DEBUG DIGEST over TLS: %v %s", err, out)
	}
	return strings.TrimSpace(out)
}

// waitDigest waits until want() and got() are equal.
func waitDigest(t *testing.T, what string, want, got func() string) {
	t.Helper()
	var w, g string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if w, g = want(), got(); w == g {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: DEBUG DIGEST of the primary %s, of the replica %s", what, w, g)
		}
	}
}

// TestTLSReplication: a radish replica (tls-replication yes, 3 shards)
// of a 4-shard radish primary listening on TLS only (port 0) takes its
// full sync on flows, every one over TLS (the primary's log says the
// sync went on flows), and the stream after it: the digests are equal
// after the full sync and after more writes.
func TestTLSReplication(t *testing.T) {
	p := newPKI(t)
	primary := startTLS(t, p, "--port", "0", "--shards", "4")
	c := primary.tlsClient(4)
	if out, err := primary.tlsCli(true, "DEBUG", "POPULATE", "30000", "k", "40"); err != nil {
		t.Fatal(err, out)
	}
	tlsWrites(t, c, "before", 2000)
	replica := start(t, append(replicaTLSArgs(p), "--shards", "3", "--replicaof", "127.0.0.1 "+strconv.Itoa(primary.tport))...)
	waitFor(t, "the replica's link", func() bool {
		return infoOf(replica.cli("INFO", "replication"), "master_link_status") == "up"
	})
	waitDigest(t, "after the full sync", func() string { return tlsDigest(t, primary) },
		func() string { return digests(t, replica.addr) })
	tlsWrites(t, c, "after", 2000)
	c.Del(context.Background(), "k:1", "k:2", "before:0")
	waitDigest(t, "after the writes", func() string { return tlsDigest(t, primary) },
		func() string { return digests(t, replica.addr) })
	logs, _ := os.ReadFile(primary.log)
	if !strings.Contains(string(logs), "full sync served on flows") {
		t.Errorf("the full sync did not go on flows:\n%s", logs)
	}
}

// startRedisTLS runs redis-server with a plain port and a TLS port with
// p's server certificate and CA, then extra, and returns its plain and
// TLS addresses.
func startRedisTLS(t *testing.T, p *pki, extra ...string) (plain, secure string) {
	tport := freePort(t)
	_, plain = startRedisPID(t, append([]string{"--tls-port", strconv.Itoa(tport), "--tls-cert-file", p.serverCert,
		"--tls-key-file", p.serverKey, "--tls-ca-cert-file", p.caFile, "--enable-debug-command", "yes"}, extra...)...)
	return plain, "127.0.0.1:" + strconv.Itoa(tport)
}

// TestTLSReplicaOfRedis: a radish replica with tls-replication yes of a
// redis-server primary, on its TLS port (mutual TLS): equal digests
// after the full sync and after more writes.
func TestTLSReplicaOfRedis(t *testing.T) {
	p := newPKI(t)
	plain, secure := startRedisTLS(t, p)
	rcli(t, plain, "DEBUG", "POPULATE", "20000", "k", "30")
	c := redis.NewClient(&redis.Options{Addr: plain, Protocol: 2, DisableIdentity: true})
	defer c.Close()
	tlsWrites(t, c, "before", 2000)
	h, port := hostPort(secure)
	replica := start(t, append(replicaTLSArgs(p), "--shards", "2", "--replicaof", h+" "+port)...)
	waitFor(t, "the replica's link", func() bool {
		return infoOf(replica.cli("INFO", "replication"), "master_link_status") == "up"
	})
	waitSame(t, plain, replica.addr)
	tlsWrites(t, c, "after", 2000)
	waitSame(t, plain, replica.addr)
}

// TestRedisReplicaOfTLS: redis-server with tls-replication yes replicates
// a radish primary listening on TLS only: equal digests after the full
// sync (the one payload: redis-server asks for no flows) and after more
// writes.
func TestRedisReplicaOfTLS(t *testing.T) {
	p := newPKI(t)
	primary := startTLS(t, p, "--port", "0", "--shards", "3")
	c := primary.tlsClient(4)
	if out, err := primary.tlsCli(true, "DEBUG", "POPULATE", "20000", "k", "30"); err != nil {
		t.Fatal(err, out)
	}
	tlsWrites(t, c, "before", 2000)
	_, raddr := startRedisPID(t, append(replicaTLSArgs(p), "--enable-debug-command", "yes", "--replicaof", "127.0.0.1", strconv.Itoa(primary.tport))...)
	waitFor(t, "redis-server's link", func() bool {
		return infoOf(rcli(t, raddr, "INFO", "replication"), "master_link_status") == "up"
	})
	waitDigest(t, "after the full sync", func() string { return tlsDigest(t, primary) },
		func() string { return digests(t, raddr) })
	tlsWrites(t, c, "after", 2000)
	waitDigest(t, "after the writes", func() string { return tlsDigest(t, primary) },
		func() string { return digests(t, raddr) })
}

// TestTLSReplicationWrongCA: a replica that does not trust the primary's
// CA logs why its link fails, stays down (INFO) and loads nothing.
func TestTLSReplicationWrongCA(t *testing.T) {
	p, other := newPKI(t), newPKI(t)
	primary := startTLS(t, p, "--port", "0")
	if out, err := primary.tlsCli(true, "SET", "k", "v"); err != nil {
		t.Fatal(err, out)
	}
	args := replicaTLSArgs(p)
	args[len(args)-1] = other.caFile
	replica := start(t, append(args, "--replicaof", "127.0.0.1 "+strconv.Itoa(primary.tport))...)
	waitFor(t, "the replica's log of the failed handshake", func() bool {
		logs, _ := os.ReadFile(replica.log)
		return strings.Contains(string(logs), "TLS handshake with the primary") &&
			strings.Contains(string(logs), "certificate signed by unknown authority")
	})
	info := replica.cli("INFO", "replication")
	if infoOf(info, "master_link_status") != "down" || infoOf(info, "master_sync_in_progress") != "0" {
		t.Errorf("INFO replication of a replica that cannot verify its primary:\n%s", info)
	}
	if got := strings.TrimSpace(replica.cli("DBSIZE")); got != "0" {
		t.Errorf("DBSIZE %s: the replica synced", got)
	}
}

// TestTLSReplicationConfig: tls-replication and tls-client-* in CONFIG
// GET and SET answer as redis-server's: tls-replication yes without a
// certificate is refused, a client certificate path is taken while TLS
// is not configured.
func TestTLSReplicationConfig(t *testing.T) {
	_, raddr := startRedisPID(t)
	s := start(t)
	for _, args := range [][]string{
		{"CONFIG", "GET", "tls-replication"},
		{"CONFIG", "GET", "tls-client-cert-file"},
		{"CONFIG", "GET", "tls-client-key-file"},
		{"CONFIG", "GET", "tls-client-key-file-pass"},
		{"CONFIG", "SET", "tls-replication", "yes"},
		{"CONFIG", "SET", "tls-replication", "maybe"},
		{"CONFIG", "GET", "tls-replication"},
		{"CONFIG", "SET", "tls-client-cert-file", "/nonexistent"},
		{"CONFIG", "GET", "tls-client-cert-file"},
	} {
		want, got := rcliAny(raddr, args...), rcliAny(s.addr, args...)
		if got != want {
			t.Errorf("%v: %q, redis-server %q", args, got, want)
		}
	}
	p := newPKI(t)
	for _, a := range [][2]string{{"tls-cert-file", p.serverCert}, {"tls-key-file", p.serverKey},
		{"tls-ca-cert-file", p.caFile}, {"tls-client-cert-file", ""}, {"tls-replication", "yes"}} {
		if got := rcliAny(s.addr, "CONFIG", "SET", a[0], a[1]); got != "OK" {
			t.Errorf("CONFIG SET %s: %q", a[0], got)
		}
	}
	if got := rcliAny(s.addr, "CONFIG", "GET", "tls-replication"); got != "tls-replication\nyes" {
		t.Errorf("CONFIG GET tls-replication: %q", got)
	}
}

// rcliAny runs redis-cli against addr and returns its trimmed output,
// errors included.
func rcliAny(addr string, args ...string) string {
	h, p := hostPort(addr)
	out, _ := exec.Command("redis-cli", append([]string{"-h", h, "-p", p}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out))
}

// TestTLSFailover: two radish servers with TLS ports and tls-replication
// yes: the replica announces its TLS port (as Redis), and FAILOVER makes
// the old primary a replica of it over TLS, with the data.
func TestTLSFailover(t *testing.T) {
	p := newPKI(t)
	a := startTLS(t, p, append(replicaTLSArgs(p), "--shards", "2")...)
	b := startTLS(t, p, append(replicaTLSArgs(p), "--shards", "2", "--replicaof", "127.0.0.1 "+strconv.Itoa(a.tport))...)
	rcli(t, a.addr, "DEBUG", "POPULATE", "5000", "k", "20")
	linkUp(t, b.addr)
	if got := infoOf(rcli(t, a.addr, "INFO", "replication"), "slave0"); !strings.Contains(got, "port="+strconv.Itoa(b.tport)+",") {
		t.Fatalf("the replica announced %q, want its TLS port %d", got, b.tport)
	}
	waitSame(t, a.addr, b.addr)
	if got := rcli(t, a.addr, "FAILOVER"); got != "OK" {
		t.Fatalf("FAILOVER: %q", got)
	}
	waitFor(t, "the old primary a replica of the new one over TLS", func() bool {
		info := rcli(t, a.addr, "INFO", "replication")
		return infoOf(info, "role") == "slave" && infoOf(info, "master_port") == strconv.Itoa(b.tport) &&
			infoOf(info, "master_link_status") == "up"
	})
	rcli(t, b.addr, "SET", "after", "failover")
	waitSame(t, b.addr, a.addr)
}
