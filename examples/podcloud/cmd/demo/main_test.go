package main

import (
	"testing"
	"time"

	"github.com/capkit/capkit/providertest/lifecycle"
)

func TestParseFlags(t *testing.T) {
	lifecycle.AssertParse(t, (*options).parse, []lifecycle.ParseCase[options]{
		{Name: "defaults", Want: options{DemoFlags: lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 1, Workers: 3}, Timeout: time.Minute}, deletePod: true}},
		{Name: "custom", Args: []string{"--machines=3+0", "--delete-pod=false", "--timeout=10s"},
			Want: options{DemoFlags: lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 3}, Timeout: 10 * time.Second}}},
		{Name: "no worker to delete", Args: []string{"--machines=1+0"}, WantErr: "invalid --delete-pod with no workers"},
	})
}
