//go:build linux

package tlsio

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeSelfSigned writes a self-signed certificate named for no host and
// its key into dir as name.crt and name.key.
func writeSelfSigned(t *testing.T, dir, name string) (certFile, keyFile string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	return certFile, keyFile
}

// TestClientConfig: as Redis's client context, the peer's chain is
// verified against the CA but not its name; the client certificate is
// sent; without a CA, or against another CA, the configuration or the
// handshake fails.
func TestClientConfig(t *testing.T) {
	dir := t.TempDir()
	srvCert, srvKey := writeSelfSigned(t, dir, "server")
	cliCert, cliKey := writeSelfSigned(t, dir, "client")
	other, _ := writeSelfSigned(t, dir, "other")
	if _, err := NewClientConfig(Settings{CertFile: cliCert, KeyFile: cliKey}); err == nil ||
		!strings.Contains(err.Error(), "tls-replication") {
		t.Errorf("no CA: %v", err)
	}
	server, err := NewConfig(Settings{CertFile: srvCert, KeyFile: srvKey, CAFile: cliCert})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", server)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.(*tls.Conn).Handshake()
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	for _, tc := range []struct {
		name string
		s    Settings
		ok   bool
	}{
		{"right CA", Settings{ClientCertFile: cliCert, ClientKeyFile: cliKey, CertFile: srvCert, KeyFile: srvKey, CAFile: srvCert}, true},
		{"server's certificate as the client's", Settings{CertFile: srvCert, KeyFile: srvKey, CAFile: srvCert}, false},
		{"another CA", Settings{ClientCertFile: cliCert, ClientKeyFile: cliKey, CAFile: other}, false},
	} {
		conf, err := NewClientConfig(tc.s)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		raw, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := tls.Client(raw, conf)
		c.SetDeadline(time.Now().Add(10 * time.Second))
		b := make([]byte, 2)
		_, err = c.Read(b) // TLS 1.3: the server's refusal of the certificate comes after the handshake
		c.Close()
		if tc.ok != (err == nil) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
