package tlsio

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// NewClientConfig builds the configuration of this server's outgoing TLS
// connections (a replica's links to its primary), as Redis's client
// context: the certificate is tls-client-cert-file and
// tls-client-key-file (tls-client-key-file-pass), or the server's
// tls-cert-file and tls-key-file when those are not set; the primary's
// certificate must chain to tls-ca-cert-file or tls-ca-cert-dir, which
// one of them must name; tls-protocols and tls-ciphers apply. As
// OpenSSL's peer verification in Redis, the primary's name is not
// checked against its certificate, nor its key usage.
func NewClientConfig(s Settings) (*tls.Config, error) {
	certFile, keyFile, pass := s.ClientCertFile, s.ClientKeyFile, s.ClientKeyPass
	if certFile == "" {
		certFile, keyFile, pass = s.CertFile, s.KeyFile, s.KeyPass
	}
	if certFile == "" || keyFile == "" {
		return nil, errors.New("tls-cert-file and tls-key-file (or tls-client-cert-file and tls-client-key-file) must be set")
	}
	cert, err := loadKeyPair(certFile, keyFile, pass)
	if err != nil {
		return nil, err
	}
	if s.CAFile == "" && s.CADir == "" {
		return nil, errors.New("either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled")
	}
	roots, err := loadCAs(s.CAFile, s.CADir)
	if err != nil {
		return nil, err
	}
	c := &tls.Config{InsecureSkipVerify: true, DynamicRecordSizingDisabled: true,
		// OpenSSL sends the certificate it has whatever CAs the server
		// names; crypto/tls would send none for a chain it names no CA of.
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil },
		VerifyConnection:     func(cs tls.ConnectionState) error { return verifyChain(cs, roots) },
	}
	if err := setCiphers(c, s); err != nil {
		return nil, err
	}
	return c, nil
}

// verifyChain checks that the peer's certificate chains to roots.
func verifyChain(cs tls.ConnectionState, roots *x509.CertPool) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("tls: the peer sent no certificate")
	}
	opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool(),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}
	for _, ic := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(ic)
	}
	if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
		return fmt.Errorf("tls: failed to verify certificate: %w", err)
	}
	return nil
}
