package capienv_test

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/test/internal/capienv"
)

func TestServingCertificateIsTrustedForLoopback(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	caPEM, err := capienv.WriteServingCertificate(dir)
	require.NoError(t, err)
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, capienv.CertFile), filepath.Join(dir, capienv.KeyFile))
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(caPEM))
	for _, host := range []string{"127.0.0.1", "localhost"} {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host})
		assert.NoError(t, err, host)
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "example.com"})
	assert.Error(t, err)
	fi, err := os.Stat(filepath.Join(dir, capienv.KeyFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the key is private")
}
