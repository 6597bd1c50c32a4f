package tlsio

import (
	"crypto/tls"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseProtocols(t *testing.T) {
	for in, want := range map[string][2]uint16{
		"":                {tls.VersionTLS12, tls.VersionTLS13},
		"TLSv1.3":         {tls.VersionTLS13, tls.VersionTLS13},
		"tlsv1.2":         {tls.VersionTLS12, tls.VersionTLS12},
		"TLSv1.3 TLSv1":   {tls.VersionTLS10, tls.VersionTLS13},
		"TLSv1.1 TLSv1.2": {tls.VersionTLS11, tls.VersionTLS12},
	} {
		lo, hi, err := ParseProtocols(in)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("%q: %x %x %v, want %x", in, lo, hi, err, want)
		}
	}
	if _, _, err := ParseProtocols("TLSv1.4"); err == nil {
		t.Error("TLSv1.4 accepted")
	}
}

func TestParseCiphers(t *testing.T) {
	got, err := ParseCiphers("ECDHE-RSA-AES256-GCM-SHA384:TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256:NOSUCH")
	if err != nil || !slices.Equal(got, []uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}) {
		t.Errorf("named: %x %v", got, err)
	}
	got, err = ParseCiphers("DEFAULT:!ECDHE-RSA-AES128-GCM-SHA256")
	if err != nil || len(got) == 0 || slices.Contains(got, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) {
		t.Errorf("DEFAULT less one: %x %v", got, err)
	}
	if _, err := ParseCiphers("FOO"); err == nil {
		t.Error("FOO accepted")
	}
	if err := CheckCiphersuites("TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256"); err != nil {
		t.Error(err)
	}
	for _, v := range []string{"FOO", "TLS_AES_128_GCM_SHA256"} {
		if err := CheckCiphersuites(v); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}

// TestEncryptedKeys: keys OpenSSL encrypted, as PKCS#8 (PBES2, its
// default) and in its traditional format, load with their passphrase and
// not without it.
func TestEncryptedKeys(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
	key, crt := filepath.Join(dir, "k.pem"), filepath.Join(dir, "c.pem")
	run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", crt, "-days", "1", "-subj", "/CN=t")
	p8, p8sha1, trad := filepath.Join(dir, "p8.pem"), filepath.Join(dir, "p8sha1.pem"), filepath.Join(dir, "trad.pem")
	run("pkcs8", "-topk8", "-in", key, "-out", p8, "-v2", "aes-256-cbc", "-passout", "pass:sesame")
	run("pkcs8", "-topk8", "-in", key, "-out", p8sha1, "-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1", "-passout", "pass:sesame")
	run("rsa", "-in", key, "-out", trad, "-aes256", "-traditional", "-passout", "pass:sesame")
	for _, f := range []string{p8, p8sha1, trad} {
		if _, err := loadKeyPair(crt, f, "sesame"); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
		if _, err := loadKeyPair(crt, f, "wrong"); err == nil {
			t.Errorf("%s loads with a wrong passphrase", filepath.Base(f))
		}
		if _, err := loadKeyPair(crt, f, ""); err == nil {
			t.Errorf("%s loads with no passphrase", filepath.Base(f))
		}
	}
	if _, err := loadKeyPair(crt, key, "unused"); err != nil {
		t.Errorf("a plain key with a passphrase set: %v", err)
	}
	b, _ := os.ReadFile(p8)
	if !slices.Contains([]string{"-----BEGIN ENCRYPTED PRIVATE KEY-----"}, string(b[:37])) {
		t.Errorf("openssl wrote %q", b[:40])
	}
}
