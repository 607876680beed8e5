package tlspin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// File names of the self-signed certificate and its key in the hub's data directory.
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
)

// certLifetime is how long a self-signed certificate is valid. Clients check
// the pin, not the dates; a certificate close to its end is re-issued with the
// same key at the next start, so the pin stays.
const certLifetime = 5 * 365 * 24 * time.Hour

// SelfSigned loads the hub's self-signed certificate from dir, or makes one:
// an ECDSA P-256 key kept in dir/tls.key (mode 0600) and a certificate for
// hosts in dir/tls.crt. The key is made once; when the hosts change or the
// certificate nears its end, a new certificate is issued for the same key, so
// the pin does not change. It returns the certificate and its pin.
func SelfSigned(dir string, hosts []string, now time.Time) (tls.Certificate, string, error) {
	keyPath, certPath := filepath.Join(dir, KeyFile), filepath.Join(dir, CertFile)
	key, err := loadOrCreateKey(keyPath)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	pin, err := FromPublicKey(&key.PublicKey)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	if cert, err := tls.LoadX509KeyPair(certPath, keyPath); err == nil && cert.Leaf != nil &&
		FromCert(cert.Leaf) == pin && covers(cert.Leaf, hosts) && now.Add(30*24*time.Hour).Before(cert.Leaf.NotAfter) {
		return cert, pin, nil
	}
	der, err := issue(key, hosts, now)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	if err := writeFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return tls.Certificate{}, "", err
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	return cert, pin, err
}

// LoadPair loads a certificate and key from PEM files (for example one issued
// for a tailnet name) and returns it with its pin.
func LoadPair(certFile, keyFile string) (tls.Certificate, string, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return cert, "", fmt.Errorf("loading TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return cert, FromCert(cert.Leaf), nil
}

// Hosts returns the names a hub's certificate should hold: the hosts of its
// public URLs, the bind address's host unless it is a wildcard, and localhost.
func Hosts(bind string, publicURLs []string) []string {
	var out []string
	add := func(h string) {
		if h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	for _, u := range publicURLs {
		if p, err := url.Parse(u); err == nil {
			add(p.Hostname())
		}
	}
	if h, _, err := net.SplitHostPort(bind); err == nil {
		if ip := net.ParseIP(h); ip == nil || !ip.IsUnspecified() {
			add(h)
		}
	}
	add("localhost")
	add("127.0.0.1")
	return out
}

func covers(c *x509.Certificate, hosts []string) bool {
	for _, h := range hosts {
		if c.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func issue(key *ecdsa.PrivateKey, hosts []string, now time.Time) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "hive hub"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
}

func loadOrCreateKey(path string) (*ecdsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, err
		}
		if err := writeFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
			return nil, err
		}
		return key, nil
	}
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("%s: not a PEM key; move it away to make a new one (the pin will change)", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: not an ECDSA key", path)
	}
	return ec, nil
}

// writeFile replaces path atomically with data.
func writeFile(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
