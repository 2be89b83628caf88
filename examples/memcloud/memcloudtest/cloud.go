package memcloudtest

import (
	"testing"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// NewCloud returns a fresh in-memory cloud with opts for one test, and fails the test when opts are
// invalid. Without cloud.WithSeed the cloud uses cloud.DefaultSeed, so its IDs are the same on every run.
func NewCloud(t testing.TB, opts ...cloud.Option) *cloud.Cloud {
	t.Helper()
	c, err := cloud.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
