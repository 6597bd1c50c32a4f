package e2e

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// pki is a test CA with a server and a client certificate it signed, as
// PEM files in dir.
type pki struct {
	dir                   string
	ca                    *x509.Certificate
	caKey                 *ecdsa.PrivateKey
	pool                  *x509.CertPool
	caFile                string
	serverCert, serverKey string
	clientCert, clientKey string
	client                tls.Certificate
	serial                int64
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir()}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "radish test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p.ca, _ = x509.ParseCertificate(der)
	p.caKey = key
	p.pool = x509.NewCertPool()
	p.pool.AddCert(p.ca)
	p.serial = 1
	p.caFile = p.write(t, "ca.crt", "CERTIFICATE", der)
	p.serverCert, p.serverKey = p.issue(t, "server", x509.ExtKeyUsageServerAuth)
	p.clientCert, p.clientKey = p.issue(t, "client", x509.ExtKeyUsageClientAuth)
	if p.client, err = tls.LoadX509KeyPair(p.clientCert, p.clientKey); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *pki) write(t testing.TB, name, typ string, der []byte) string {
	f := filepath.Join(p.dir, name)
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// issue makes a certificate (for 127.0.0.1 and localhost) and its key,
// named name.crt and name.key; each has the next serial number.
func (p *pki) issue(t testing.TB, name string, usage x509.ExtKeyUsage) (cert, key string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p.serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &k.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return p.write(t, name+".crt", "CERTIFICATE", der), p.write(t, name+".key", "PRIVATE KEY", kd)
}

// clientConfig is a client's TLS configuration: trusting the CA, with
// the client certificate when withCert.
func (p *pki) clientConfig(withCert bool) *tls.Config {
	c := &tls.Config{RootCAs: p.pool, ServerName: "127.0.0.1"}
	if withCert {
		c.Certificates = []tls.Certificate{p.client}
	}
	return c
}

// tlsServer is a radish-server with a TLS port (and a plain one, unless
// started with --port 0).
type tlsServer struct {
	*server
	tport int
	taddr string
	pki   *pki
}

// startTLS starts radish-server with a TLS port and p's server
// certificate and CA (mutual TLS by default, as Redis), then args, and
// waits until it answers PING over TLS.
func startTLS(t testing.TB, p *pki, args ...string) *tlsServer {
	t.Helper()
	tport := freePort(t)
	all := append([]string{"--tls-port", strconv.Itoa(tport), "--tls-cert-file", p.serverCert,
		"--tls-key-file", p.serverKey, "--tls-ca-cert-file", p.caFile}, args...)
	s := &tlsServer{server: launch(t, t.TempDir(), nil, serverBin, all...), tport: tport,
		taddr: "127.0.0.1:" + strconv.Itoa(tport), pki: p}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := s.dial(true)
		if err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			fmt.Fprint(c, "PING\r\n")
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if err == nil && line == "+PONG\r\n" {
				return s
			}
		}
		if time.Now().After(deadline) {
			logs, _ := os.ReadFile(s.log)
			t.Fatalf("server did not start: %v\n%s", err, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dial opens a TLS connection (with the client certificate when
// withCert) and completes its handshake.
func (s *tlsServer) dial(withCert bool) (*tls.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", s.taddr, s.pki.clientConfig(withCert))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// tlsClient is a go-redis client over TLS with the client certificate.
func (s *tlsServer) tlsClient(poolSize int) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.taddr, TLSConfig: s.pki.clientConfig(true), Protocol: 2,
		DisableIdentity: true, MaxRetries: -1, PoolSize: poolSize, ReadTimeout: time.Minute, WriteTimeout: time.Minute})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// tlsCli runs redis-cli --tls against the server (with the client
// certificate when withCert) and returns its output and error.
func (s *tlsServer) tlsCli(withCert bool, args ...string) (string, error) {
	base := []string{"--tls", "--cacert", s.pki.caFile, "-h", "127.0.0.1", "-p", strconv.Itoa(s.tport)}
	if withCert {
		base = append(base, "--cert", s.pki.clientCert, "--key", s.pki.clientKey)
	}
	out, err := exec.Command("redis-cli", append(base, args...)...).CombinedOutput()
	return string(out), err
}

// ioModes are the drivers every TLS test runs under.
var ioModes = []string{"uring", "epoll"}

// TestTLSClients: redis-cli --tls, redis-benchmark --tls and go-redis
// with a tls.Config, on a server listening on TLS only (port 0), with
// each driver and several shards: commands, a deep pipeline, and a 100
// MB value each way; mutual TLS refuses a client without a certificate
// (redis-cli and Go's own), and tls-auth-clients optional lets it in.
func TestTLSClients(t *testing.T) {
	p := newPKI(t)
	for _, drv := range ioModes {
		t.Run(drv, func(t *testing.T) {
			s := startTLS(t, p, "--port", "0", "--io", drv, "--shards", "3")
			if out, err := s.tlsCli(true, "PING"); err != nil || strings.TrimSpace(out) != "PONG" {
				t.Fatalf("redis-cli --tls PING: %q %v", out, err)
			}
			if out, err := s.tlsCli(true, "SET", "greeting", "hello"); err != nil || strings.TrimSpace(out) != "OK" {
				t.Fatalf("SET: %q %v", out, err)
			}
			if out, err := s.tlsCli(true, "GET", "greeting"); err != nil || strings.TrimSpace(out) != "hello" {
				t.Fatalf("GET: %q %v", out, err)
			}
			if out, err := s.tlsCli(false, "PING"); err == nil || strings.Contains(out, "PONG") {
				t.Errorf("redis-cli without a client certificate: %q %v", out, err)
			}
			if c, err := s.dial(false); err == nil {
				// TLS 1.3: the server's refusal arrives after the client's
				// handshake returned, as an alert on the first read.
				fmt.Fprint(c, "PING\r\n")
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				if line, err := bufio.NewReader(c).ReadString('\n'); err == nil {
					t.Errorf("a client without a certificate got %q", line)
				}
				c.Close()
			}

			bench := exec.Command("redis-benchmark", "--tls", "--cacert", p.caFile, "--cert", p.clientCert, "--key", p.clientKey,
				"-h", "127.0.0.1", "-p", strconv.Itoa(s.tport), "-n", "20000", "-c", "8", "-P", "16", "-t", "set,get", "--csv", "-q")
			if out, err := bench.CombinedOutput(); err != nil || !strings.Contains(string(out), `"SET"`) || !strings.Contains(string(out), `"GET"`) {
				t.Errorf("redis-benchmark --tls: %v\n%s", err, out)
			}

			c := s.tlsClient(4)
			pipe := c.Pipeline()
			for i := range 10000 {
				pipe.Set(ctx, "k"+strconv.Itoa(i), i, 0)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			gets := make([]*redis.StringCmd, 10000)
			for i := range gets {
				gets[i] = pipe.Get(ctx, "k"+strconv.Itoa(i))
			}
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			for i, g := range gets {
				if g.Val() != strconv.Itoa(i) {
					t.Fatalf("GET k%d = %q", i, g.Val())
				}
			}
			big := make([]byte, 100<<20)
			rand.Read(big[:1<<20])
			for i := 1 << 20; i < len(big); i += copy(big[i:], big[:i]) {
			}
			if err := c.Set(ctx, "big", big, 0).Err(); err != nil {
				t.Fatal(err)
			}
			got, err := c.Get(ctx, "big").Bytes()
			if err != nil || !bytes.Equal(got, big) {
				t.Fatalf("GET big: %d bytes, %v", len(got), err)
			}
			if n := c.StrLen(ctx, "big").Val(); n != int64(len(big)) {
				t.Errorf("STRLEN big = %d", n)
			}
			c.Del(ctx, "big")

			if err := c.ConfigSet(ctx, "tls-auth-clients", "optional").Err(); err != nil {
				t.Fatal(err)
			}
			if out, err := s.tlsCli(false, "PING"); err != nil || strings.TrimSpace(out) != "PONG" {
				t.Errorf("tls-auth-clients optional, no certificate: %q %v", out, err)
			}
			if out, err := s.tlsCli(true, "PING"); err != nil || strings.TrimSpace(out) != "PONG" {
				t.Errorf("tls-auth-clients optional, a certificate: %q %v", out, err)
			}
		})
	}
}

// TestTLSConfig: CONFIG GET shows the tls-* parameters with Redis's
// defaults; a CONFIG SET that cannot build a TLS configuration fails with
// Redis's text and changes nothing; CONFIG SET tls-cert-file and
// tls-key-file rotate the certificate: a client connected before keeps
// working, new handshakes see the new certificate. Sessions resume, not
// after tls-session-cache-timeout, nor with tls-session-caching no.
func TestTLSConfig(t *testing.T) {
	p := newPKI(t)
	for _, drv := range ioModes {
		t.Run(drv, func(t *testing.T) {
			s := startTLS(t, p, "--io", drv, "--shards", "2")
			plain := s.client(2)
			got := plain.ConfigGet(ctx, "tls-*").Val()
			for k, v := range map[string]string{"tls-port": strconv.Itoa(s.tport), "tls-cert-file": p.serverCert,
				"tls-auth-clients": "yes", "tls-protocols": "", "tls-session-caching": "yes",
				"tls-session-cache-size": "20480", "tls-session-cache-timeout": "300", "tls-prefer-server-ciphers": "no",
				"tls-ciphers": "", "tls-ciphersuites": "", "tls-key-file-pass": "", "tls-ca-cert-dir": ""} {
				if got[k] != v {
					t.Errorf("CONFIG GET %s = %q, want %q", k, got[k], v)
				}
			}
			for _, kv := range [][2]string{{"tls-cert-file", "/nonexistent.crt"}, {"tls-protocols", "TLSv1.4"},
				{"tls-ciphers", "FOO"}, {"tls-ciphersuites", "FOO"}} {
				want := "ERR CONFIG SET failed (possibly related to argument '" + kv[0] + "') - Unable to update TLS configuration. Check server logs."
				if err := plain.ConfigSet(ctx, kv[0], kv[1]).Err(); err == nil || err.Error() != want {
					t.Errorf("CONFIG SET %s %s: %v, want %s", kv[0], kv[1], err, want)
				}
			}
			if err := plain.ConfigSet(ctx, "tls-auth-clients", "maybe").Err(); err == nil ||
				err.Error() != "ERR CONFIG SET failed (possibly related to argument 'tls-auth-clients') - argument(s) must be one of the following: no, yes, optional" {
				t.Errorf("tls-auth-clients maybe: %v", err)
			}
			if got := plain.ConfigGet(ctx, "tls-cert-file").Val()["tls-cert-file"]; got != p.serverCert {
				t.Errorf("a refused CONFIG SET changed tls-cert-file to %q", got)
			}

			before, err := s.dial(true)
			if err != nil {
				t.Fatal(err)
			}
			defer before.Close()
			oldSerial := before.ConnectionState().PeerCertificates[0].SerialNumber
			rd := bufio.NewReader(before)
			ping := func(what string) {
				t.Helper()
				before.SetDeadline(time.Now().Add(10 * time.Second))
				fmt.Fprint(before, "PING\r\n")
				if line, err := rd.ReadString('\n'); err != nil || line != "+PONG\r\n" {
					t.Fatalf("%s: %q %v", what, line, err)
				}
			}
			ping("before the rotation")
			cert, key := p.issue(t, "rotated-"+drv, x509.ExtKeyUsageServerAuth)
			if err := plain.Do(ctx, "CONFIG", "SET", "tls-cert-file", cert, "tls-key-file", key).Err(); err != nil {
				t.Fatal(err)
			}
			ping("after the rotation, connected before")
			after, err := s.dial(true)
			if err != nil {
				t.Fatal(err)
			}
			defer after.Close()
			newSerial := after.ConnectionState().PeerCertificates[0].SerialNumber
			if newSerial.Cmp(oldSerial) == 0 || after.ConnectionState().PeerCertificates[0].Subject.CommonName != "rotated-"+drv {
				t.Errorf("a handshake after the rotation got certificate %v (%s), before it %v", newSerial,
					after.ConnectionState().PeerCertificates[0].Subject.CommonName, oldSerial)
			}
			if out, err := s.tlsCli(true, "PING"); err != nil || strings.TrimSpace(out) != "PONG" {
				t.Errorf("redis-cli after the rotation: %q %v", out, err)
			}

			// Session resumption: on by default (tls-session-caching),
			// off when turned off.
			resumed := func(wait time.Duration) bool {
				t.Helper()
				conf := s.pki.clientConfig(true)
				conf.ClientSessionCache = tls.NewLRUClientSessionCache(4)
				var did bool
				for i := range 2 {
					if i == 1 {
						time.Sleep(wait)
					}
					c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", s.taddr, conf)
					if err != nil {
						t.Fatal(err)
					}
					c.SetDeadline(time.Now().Add(10 * time.Second))
					fmt.Fprint(c, "PING\r\n") // the reply comes after the ticket
					if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "+PONG\r\n" {
						t.Fatalf("PING: %q %v", line, err)
					}
					did = c.ConnectionState().DidResume
					c.Close()
				}
				return did
			}
			if !resumed(0) {
				t.Error("a second connection did not resume the first one's session")
			}
			if err := plain.ConfigSet(ctx, "tls-session-cache-timeout", "1").Err(); err != nil {
				t.Fatal(err)
			}
			if resumed(2500 * time.Millisecond) {
				t.Error("a session resumed after tls-session-cache-timeout")
			}
			if err := plain.ConfigSet(ctx, "tls-session-caching", "no").Err(); err != nil {
				t.Fatal(err)
			}
			if resumed(0) {
				t.Error("a session resumed with tls-session-caching no")
			}
		})
	}
}

// TestTLSStalledHandshake: clients that open the TLS port and stall
// mid-handshake (a partial ClientHello, or nothing) are cut after
// tls-handshake-timeout, and meanwhile every shard keeps serving TLS and
// plain clients.
func TestTLSStalledHandshake(t *testing.T) {
	p := newPKI(t)
	for _, drv := range ioModes {
		t.Run(drv, func(t *testing.T) {
			s := startTLS(t, p, "--io", drv, "--shards", "2", "--tls-handshake-timeout", "2")
			var stalled []net.Conn
			for i := range 40 {
				c, err := net.DialTimeout("tcp", s.taddr, 10*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if i%2 == 0 {
					c.Write([]byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01}) // a ClientHello's first bytes
				}
				stalled = append(stalled, c)
			}
			start := time.Now()
			c := s.tlsClient(4)
			plain := s.client(2)
			for i := range 200 { // keys on every shard
				k := "key" + strconv.Itoa(i)
				if err := c.Set(ctx, k, i, 0).Err(); err != nil {
					t.Fatal(err)
				}
				if v := plain.Get(ctx, k).Val(); v != strconv.Itoa(i) {
					t.Fatalf("GET %s over plain TCP = %q", k, v)
				}
			}
			for _, sc := range stalled {
				sc.SetReadDeadline(time.Now().Add(15 * time.Second))
				if _, err := io.ReadAll(sc); err != nil {
					t.Fatalf("a stalled handshake was not closed: %v", err)
				}
			}
			if d := time.Since(start); d < 1900*time.Millisecond {
				t.Errorf("stalled handshakes cut after %v, before the 2 s timeout", d)
			}
			if err := c.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				n := infoField(t, plain, "connected_clients")
				if n == "2" || n == "3" || n == "4" || n == "5" { // the go-redis pools' connections
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("connected_clients = %s after the stalled handshakes were cut", n)
				}
			}
		})
	}
}

// TestTLSLimits: proto-max-bulk-len and client-query-buffer-limit hold
// over TLS as over plain TCP: the same reply for a bulk over the limit,
// the same cut for a query over the buffer limit; timeout closes an idle
// TLS client; and maxclients counts TLS clients, which are told Redis's
// error.
func TestTLSLimits(t *testing.T) {
	p := newPKI(t)
	for _, drv := range ioModes {
		t.Run(drv, func(t *testing.T) {
			s := startTLS(t, p, "--io", drv, "--proto-max-bulk-len", "1mb", "--client-query-buffer-limit", "1mb")
			// ask sends req and reads until the server closes the
			// connection (a reset counts: a server closing on unread
			// input resets it).
			ask := func(c net.Conn, req []byte) string {
				t.Helper()
				c.SetDeadline(time.Now().Add(20 * time.Second))
				go c.Write(req)
				b, err := io.ReadAll(c)
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Fatalf("the server did not close the connection; read %q", b)
				}
				return string(b)
			}
			tc, err := s.dial(true)
			if err != nil {
				t.Fatal(err)
			}
			bulk := []byte("*2\r\n$3\r\nGET\r\n$2000000\r\n")
			viaTLS, viaTCP := ask(tc, bulk), ask(s.raw(), bulk)
			if viaTLS != viaTCP || !strings.HasPrefix(viaTLS, "-ERR Protocol error") {
				t.Errorf("a bulk over proto-max-bulk-len: over TLS %q, over TCP %q", viaTLS, viaTCP)
			}
			// A command that never completes, 1.4 MB of it (each bulk
			// under proto-max-bulk-len): cut, with no reply.
			part := "*3\r\n$3\r\nSET\r\n$900000\r\n" + strings.Repeat("x", 900000) + "\r\n$900000\r\n" + strings.Repeat("y", 500000)
			if tc, err = s.dial(true); err != nil {
				t.Fatal(err)
			}
			viaTLS = ask(tc, []byte(part))
			viaTCP = ask(s.raw(), []byte(part))
			if viaTLS != "" || viaTCP != "" {
				t.Errorf("a query over client-query-buffer-limit: over TLS %q, over TCP %q", viaTLS, viaTCP)
			}

			// timeout closes an idle TLS client as a plain one.
			ctl := s.client(2)
			if err := ctl.ConfigSet(ctx, "timeout", "1").Err(); err != nil {
				t.Fatal(err)
			}
			if tc, err = s.dial(true); err != nil {
				t.Fatal(err)
			}
			idleStart := time.Now()
			if got := ask(tc, nil); got != "" || time.Since(idleStart) < 900*time.Millisecond {
				t.Errorf("an idle TLS client under timeout 1: %q after %v", got, time.Since(idleStart))
			}
			// ctl sat idle as long: timeout may have closed its connection too.
			ctl = s.client(2)
			if err := ctl.ConfigSet(ctx, "timeout", "0").Err(); err != nil {
				t.Fatal(err)
			}
			if err := ctl.ConfigSet(ctx, "maxclients", "1").Err(); err != nil {
				t.Fatal(err)
			}
			if tc, err = s.dial(true); err != nil {
				t.Fatal(err)
			}
			if got := ask(tc, nil); got != "-ERR max number of clients reached\r\n" {
				t.Errorf("over maxclients by TLS: %q", got)
			}
		})
	}
}
