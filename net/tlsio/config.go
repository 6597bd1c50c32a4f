package tlsio

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/asn1"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Settings are Redis's tls-* parameters.
type Settings struct {
	CertFile, KeyFile string
	KeyPass           string // tls-key-file-pass: the key file's passphrase
	// ClientCertFile, ClientKeyFile and ClientKeyPass are
	// tls-client-cert-file, tls-client-key-file and
	// tls-client-key-file-pass: the certificate of outgoing connections
	// (NewClientConfig), when not the server's.
	ClientCertFile, ClientKeyFile, ClientKeyPass string
	CAFile, CADir                                string
	AuthClients                                  string // "yes", "no" or "optional"
	Protocols                                    string // e.g. "TLSv1.2 TLSv1.3"; "" is that
	Ciphers                                      string // TLS 1.2 and below, OpenSSL's list syntax
	Ciphersuites                                 string // TLS 1.3
	SessionCaching                               bool
	// SessionCacheTimeout is how long a session may be resumed, in
	// seconds. Sessions are session tickets the client holds: there is
	// no server cache, so nothing for tls-session-cache-size to bound,
	// and crypto/tls picks the cipher suite itself, whatever
	// tls-prefer-server-ciphers says: neither is a Setting.
	SessionCacheTimeout int
}

// NewConfig builds the server configuration s describes, loading the
// certificate, key and CA files. The error says what was wrong, as
// Redis's log does.
func NewConfig(s Settings) (*tls.Config, error) {
	if s.CertFile == "" || s.KeyFile == "" {
		return nil, errors.New("tls-cert-file and tls-key-file must be set")
	}
	cert, err := loadKeyPair(s.CertFile, s.KeyFile, s.KeyPass)
	if err != nil {
		return nil, err
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, DynamicRecordSizingDisabled: true}
	switch s.AuthClients {
	case "no":
		c.ClientAuth = tls.NoClientCert
	case "optional":
		c.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if s.CAFile != "" || s.CADir != "" {
		if c.ClientCAs, err = loadCAs(s.CAFile, s.CADir); err != nil {
			return nil, err
		}
	} else if c.ClientAuth != tls.NoClientCert {
		return nil, errors.New("either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled")
	}
	if err := setCiphers(c, s); err != nil {
		return nil, err
	}
	c.SessionTicketsDisabled = !s.SessionCaching
	if s.SessionCaching && s.SessionCacheTimeout > 0 {
		limitSessions(c, time.Duration(s.SessionCacheTimeout)*time.Second)
	}
	return c, nil
}

// setCiphers sets c's protocol versions and TLS 1.2 cipher suites from
// s, and checks s's TLS 1.3 suites, for a server's config and a
// replica's alike.
func setCiphers(c *tls.Config, s Settings) (err error) {
	if c.MinVersion, c.MaxVersion, err = ParseProtocols(s.Protocols); err != nil {
		return err
	}
	if s.Ciphers != "" {
		if c.CipherSuites, err = ParseCiphers(s.Ciphers); err != nil {
			return err
		}
	}
	return CheckCiphersuites(s.Ciphersuites)
}

// limitSessions makes a session older than ttl unresumable: its ticket
// carries the time it was issued.
func limitSessions(c *tls.Config, ttl time.Duration) {
	c.WrapSession = func(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
		ss.Extra = append(ss.Extra, binary.BigEndian.AppendUint64(nil, uint64(time.Now().Unix())))
		return c.EncryptTicket(cs, ss)
	}
	c.UnwrapSession = func(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
		ss, err := c.DecryptTicket(identity, cs)
		if err != nil || ss == nil || len(ss.Extra) == 0 {
			return nil, err
		}
		at := ss.Extra[len(ss.Extra)-1]
		if len(at) != 8 || time.Since(time.Unix(int64(binary.BigEndian.Uint64(at)), 0)) > ttl {
			return nil, nil // a full handshake
		}
		return ss, nil
	}
}

// ParseProtocols reads tls-protocols: TLS versions separated by spaces
// (any case); "" is TLSv1.2 and TLSv1.3. crypto/tls takes a range, so
// the lowest and highest named bound it.
func ParseProtocols(v string) (lo, hi uint16, err error) {
	if strings.TrimSpace(v) == "" {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	for _, p := range strings.Fields(v) {
		var ver uint16
		switch strings.ToLower(p) {
		case "tlsv1":
			ver = tls.VersionTLS10
		case "tlsv1.1":
			ver = tls.VersionTLS11
		case "tlsv1.2":
			ver = tls.VersionTLS12
		case "tlsv1.3":
			ver = tls.VersionTLS13
		default:
			return 0, 0, errors.New("invalid tls-protocols specified; use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'")
		}
		if lo == 0 || ver < lo {
			lo = ver
		}
		hi = max(hi, ver)
	}
	return lo, hi, nil
}

// openSSLNames are OpenSSL's names of the TLS 1.2 suites crypto/tls
// implements.
var openSSLNames = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
}

// ParseCiphers reads tls-ciphers, OpenSSL's cipher list (names separated
// by ':', ',' or spaces): OpenSSL or IANA names of the suites crypto/tls
// has, in order; DEFAULT, HIGH, ALL and ECDHE add crypto/tls's secure
// suites; a name after '!' or '-' is removed; other words (names of
// suites crypto/tls lacks, OpenSSL's other keywords) match nothing, as
// OpenSSL's unknown names do. A list matching no suite is an error.
func ParseCiphers(v string) ([]uint16, error) {
	iana := make(map[string]uint16)
	var secure []uint16
	for _, cs := range tls.CipherSuites() {
		iana[cs.Name] = cs.ID
		if slices.Contains(cs.SupportedVersions, tls.VersionTLS12) {
			secure = append(secure, cs.ID)
		}
	}
	for _, cs := range tls.InsecureCipherSuites() {
		iana[cs.Name] = cs.ID
	}
	var out []uint16
	add := func(ids ...uint16) {
		for _, id := range ids {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		drop := w[0] == '!' || w[0] == '-'
		w = strings.TrimLeft(w, "!-+")
		var ids []uint16
		switch strings.ToUpper(w) {
		case "DEFAULT", "HIGH", "ALL", "ECDHE", "EECDH", "AESGCM":
			ids = secure
		default:
			if id, ok := openSSLNames[w]; ok {
				ids = []uint16{id}
			} else if id, ok := iana[w]; ok {
				ids = []uint16{id}
			}
		}
		if drop {
			out = slices.DeleteFunc(out, func(id uint16) bool { return slices.Contains(ids, id) })
		} else {
			add(ids...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("failed to configure ciphers: %q matches no cipher suite", v)
	}
	return out, nil
}

// tls13Suites are the TLS 1.3 suites crypto/tls always enables.
var tls13Suites = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

// CheckCiphersuites checks tls-ciphersuites (TLS 1.3 suite names
// separated by ':'). crypto/tls enables all three TLS 1.3 suites and
// cannot leave one out, so a list must name every one of them (in any
// order), or be empty.
func CheckCiphersuites(v string) error {
	if v == "" {
		return nil
	}
	names := strings.Split(v, ":")
	for _, n := range names {
		if !slices.Contains(tls13Suites, n) {
			return fmt.Errorf("failed to configure ciphersuites: unknown TLS 1.3 suite %q", n)
		}
	}
	for _, n := range tls13Suites {
		if !slices.Contains(names, n) {
			return fmt.Errorf("tls-ciphersuites must list all of %s: crypto/tls cannot leave one out",
				strings.Join(tls13Suites, ":"))
		}
	}
	return nil
}

// loadKeyPair loads a certificate chain and its key, decrypting the key
// with pass when it is encrypted (PKCS#8 with PBES2, or the legacy PEM
// "Proc-Type: 4,ENCRYPTED" of OpenSSL's traditional format).
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("failed to load certificate: %s: %w", certFile, err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("failed to load private key: %s: %w", keyFile, err)
	}
	if pass != "" {
		if keyPEM, err = decryptKey(keyPEM, pass); err != nil {
			return tls.Certificate{}, fmt.Errorf("failed to load private key: %s: %w", keyFile, err)
		}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("failed to load certificate and key (%s, %s): %w", certFile, keyFile, err)
	}
	return cert, nil
}

// decryptKey returns the PEM of the decrypted key in keyPEM; a key that
// is not encrypted is returned as it is.
func decryptKey(keyPEM []byte, pass string) ([]byte, error) {
	rest := keyPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return keyPEM, nil
		}
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			der, err := decryptPKCS8(b.Bytes, pass)
			if err != nil {
				return nil, err
			}
			return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
		// OpenSSL's traditional format (deprecated in Go: its CBC padding
		// is unauthenticated; it is what older keys are in).
		case x509.IsEncryptedPEMBlock(b):
			der, err := x509.DecryptPEMBlock(b, []byte(pass))
			if err != nil {
				return nil, err
			}
			return pem.EncodeToMemory(&pem.Block{Type: b.Type, Bytes: der}), nil
		}
	}
}

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
)

type algorithm struct {
	OID    asn1.ObjectIdentifier
	Params asn1.RawValue `asn1:"optional"`
}

type encryptedKeyInfo struct {
	Alg  algorithm
	Data []byte
}

type pbes2Params struct {
	KDF, Cipher algorithm
}

type pbkdf2Params struct {
	Salt   []byte
	Iter   int
	KeyLen int       `asn1:"optional"`
	PRF    algorithm `asn1:"optional"`
}

var errBadPass = errors.New("bad passphrase or corrupt key")

// decryptPKCS8 decrypts an EncryptedPrivateKeyInfo (RFC 5958) under
// PBES2 with PBKDF2 (HMAC-SHA1 or -SHA256) and AES-CBC, what OpenSSL
// writes by default, to a PKCS#8 DER key.
func decryptPKCS8(der []byte, pass string) ([]byte, error) {
	var info encryptedKeyInfo
	if _, err := asn1.Unmarshal(der, &info); err != nil {
		return nil, err
	}
	var p pbes2Params
	if !info.Alg.OID.Equal(oidPBES2) {
		return nil, fmt.Errorf("unsupported key encryption %v (only PBES2)", info.Alg.OID)
	}
	if _, err := asn1.Unmarshal(info.Alg.Params.FullBytes, &p); err != nil {
		return nil, err
	}
	var kdf pbkdf2Params
	if !p.KDF.OID.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("unsupported key derivation %v (only PBKDF2)", p.KDF.OID)
	}
	if _, err := asn1.Unmarshal(p.KDF.Params.FullBytes, &kdf); err != nil {
		return nil, err
	}
	var h func() hash.Hash
	switch {
	case kdf.PRF.OID == nil || kdf.PRF.OID.Equal(oidHMACSHA1):
		h = sha1.New
	case kdf.PRF.OID.Equal(oidHMACSHA256):
		h = sha256.New
	default:
		return nil, fmt.Errorf("unsupported PBKDF2 hash %v", kdf.PRF.OID)
	}
	var keyLen int
	switch {
	case p.Cipher.OID.Equal(oidAES128CBC):
		keyLen = 16
	case p.Cipher.OID.Equal(oidAES192CBC):
		keyLen = 24
	case p.Cipher.OID.Equal(oidAES256CBC):
		keyLen = 32
	default:
		return nil, fmt.Errorf("unsupported key cipher %v (only AES-CBC)", p.Cipher.OID)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(p.Cipher.Params.FullBytes, &iv); err != nil {
		return nil, err
	}
	key, err := pbkdf2.Key(h, pass, kdf.Salt, kdf.Iter, keyLen)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if len(iv) != block.BlockSize() || len(info.Data) == 0 || len(info.Data)%block.BlockSize() != 0 {
		return nil, errBadPass
	}
	out := make([]byte, len(info.Data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, info.Data)
	pad := int(out[len(out)-1])
	if pad == 0 || pad > block.BlockSize() {
		return nil, errBadPass
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, errBadPass
		}
	}
	return out[:len(out)-pad], nil
}

// loadCAs reads the certificates of file and of every file in dir.
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	var files []string
	if file != "" {
		files = append(files, file)
	}
	if dir != "" {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("failed to configure CA certificate(s) directory: %w", err)
		}
		for _, e := range ents {
			if !e.IsDir() {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to configure CA certificate(s) file: %w", err)
		}
		for len(b) > 0 {
			var blk *pem.Block
			if blk, b = pem.Decode(b); blk == nil {
				break
			}
			if blk.Type != "CERTIFICATE" {
				continue
			}
			c, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				return nil, fmt.Errorf("failed to configure CA certificate(s) file %s: %w", f, err)
			}
			pool.AddCert(c)
			n++
		}
	}
	if n == 0 {
		return nil, errors.New("failed to configure CA certificate(s): no certificate found")
	}
	return pool, nil
}
