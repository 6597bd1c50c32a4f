package main

import (
	"crypto/tls"
	"fmt"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/net/tlsio"
)

// tlsParams are the parameters the TLS configuration is built from: a
// CONFIG SET of any of them rebuilds it (and reads the files again, so
// setting tls-cert-file to the same path reloads a rotated certificate).
var tlsParams = []string{"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file",
	"tls-ca-cert-dir", "tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites",
	"tls-prefer-server-ciphers", "tls-session-caching", "tls-session-cache-size", "tls-session-cache-timeout"}

func tlsSettings(s *config.Snapshot) tlsio.Settings {
	return tlsio.Settings{
		CertFile: s.TLSCertFile, KeyFile: s.TLSKeyFile, KeyPass: s.TLSKeyFilePass,
		CAFile: s.TLSCACertFile, CADir: s.TLSCACertDir, AuthClients: s.TLSAuthClients,
		Protocols: s.TLSProtocols, Ciphers: s.TLSCiphers, Ciphersuites: s.TLSCiphersuites,
		SessionCaching: s.TLSSessionCaching, SessionCacheTimeout: s.TLSSessionCacheTimeout,
	}
}

// setupTLS builds the TLS configuration when tls-port is set (nil
// otherwise) and has CONFIG SET of a tls-* parameter rebuild it: new
// handshakes take the new one, connected clients keep theirs. A
// configuration that does not build fails the start, or the CONFIG SET
// with Redis's text (the reason is logged), as in Redis.
func setupTLS(conf *config.Config, log *zap.Logger) (func() *tls.Config, error) {
	snap := conf.Snapshot()
	if snap.TLSPort == 0 {
		return nil, nil
	}
	c, err := tlsio.NewConfig(tlsSettings(snap))
	if err != nil {
		return nil, fmt.Errorf("failed to configure TLS: %w", err)
	}
	var cur atomic.Pointer[tls.Config]
	cur.Store(c)
	conf.Verify(tlsParams, func(s *config.Snapshot) string {
		c, err := tlsio.NewConfig(tlsSettings(s))
		if err != nil {
			log.Warn("failed to update the TLS configuration", zap.Error(err))
			return "Unable to update TLS configuration. Check server logs."
		}
		cur.Store(c)
		log.Info("TLS configuration updated: new connections use it")
		return ""
	})
	return cur.Load, nil
}
