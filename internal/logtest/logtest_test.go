package logtest_test

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/capkit/capkit/internal/logtest"
)

// A value logged as client-go logs a protobuf body is split across hex dump lines; the Sink finds it whole.
func TestSinkFindsValuesSplitAcrossHexDumpLines(t *testing.T) {
	secret := "a-value-longer-than-one-sixteen-byte-hex-dump-line"
	dump := hex.Dump([]byte("k8s\x00" + secret))
	assert.NotContains(t, dump, secret, "a hex dump hides the value from a plain search")

	var s logtest.Sink
	s.Logger().V(8).Info("Response Body", "body", dump)
	assert.Contains(t, logtest.FromHexDumps(dump), secret)
	assert.Contains(t, s.String(), secret, "String appends the decoded dumps")
}
