package main

import (
	"crypto/tls"
	"fmt"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/net/tlsio"
)

// tlsParams are the parameters the TLS configurations are built from: a
// CONFIG SET of any of them rebuilds them (and reads the files again, so
// setting tls-cert-file to the same path reloads a rotated certificate).
var tlsParams = []string{"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file",
	"tls-ca-cert-dir", "tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites",
	"tls-prefer-server-ciphers", "tls-session-caching", "tls-session-cache-size", "tls-session-cache-timeout",
	"tls-replication", "tls-client-cert-file", "tls-client-key-file", "tls-client-key-file-pass"}

func tlsSettings(s *config.Snapshot) tlsio.Settings {
	return tlsio.Settings{
		CertFile: s.TLSCertFile, KeyFile: s.TLSKeyFile, KeyPass: s.TLSKeyFilePass,
		ClientCertFile: s.TLSClientCertFile, ClientKeyFile: s.TLSClientKeyFile, ClientKeyPass: s.TLSClientKeyFilePass,
		CAFile: s.TLSCACertFile, CADir: s.TLSCACertDir, AuthClients: s.TLSAuthClients,
		Protocols: s.TLSProtocols, Ciphers: s.TLSCiphers, Ciphersuites: s.TLSCiphersuites,
		SessionCaching: s.TLSSessionCaching, SessionCacheTimeout: s.TLSSessionCacheTimeout,
	}
}

// buildTLS builds the server's configuration and, under tls-replication,
// the replica links' client configuration; as Redis, TLS is configured
// (and its files must load) only when tls-port or tls-replication is set.
func buildTLS(s *config.Snapshot) (server, client *tls.Config, err error) {
	if s.TLSPort == 0 && !s.TLSReplication {
		return nil, nil, nil
	}
	if server, err = tlsio.NewConfig(tlsSettings(s)); err != nil {
		return nil, nil, err
	}
	if s.TLSReplication {
		if client, err = tlsio.NewClientConfig(tlsSettings(s)); err != nil {
			return nil, nil, err
		}
	}
	return server, client, nil
}

// setupTLS builds the TLS configurations (buildTLS) and has CONFIG SET of
// a tls-* parameter rebuild them: new handshakes and replica links take
// the new ones, connected clients keep theirs. It returns the server's
// (nil without tls-port) and the replica links' (nil while
// tls-replication is no). A configuration that does not build fails the
// start, or the CONFIG SET with Redis's text (the reason is logged), as
// in Redis.
func setupTLS(conf *config.Config, log *zap.Logger) (server, client func() *tls.Config, err error) {
	snap := conf.Snapshot()
	s, c, err := buildTLS(snap)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to configure TLS: %w", err)
	}
	var srv, cli atomic.Pointer[tls.Config]
	srv.Store(s)
	cli.Store(c)
	conf.Verify(tlsParams, func(snap *config.Snapshot) string {
		s, c, err := buildTLS(snap)
		if err != nil {
			log.Warn("failed to update the TLS configuration", zap.Error(err))
			return "Unable to update TLS configuration. Check server logs."
		}
		srv.Store(s)
		cli.Store(c)
		if s != nil {
			log.Info("TLS configuration updated: new connections use it")
		}
		return ""
	})
	if snap.TLSPort != 0 {
		server = srv.Load
	}
	return server, cli.Load, nil
}
