package main

import (
	"testing"
	"time"

	"github.com/capkit/capkit/providertest/lifecycle"
)

func TestParseFlags(t *testing.T) {
	lifecycle.AssertParse(t, (*options).parse, []lifecycle.ParseCase[options]{
		{Name: "defaults", Want: options{DemoFlags: lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 1, Workers: 3}, Timeout: 45 * time.Second}, faults: 0.1, searchLag: 2, seed: 1, cloudRate: 40}},
		{Name: "custom", Args: []string{"--machines=3+0", "--faults=0", "--seed=9", "--timeout=10s", "--search-lag=0", "--cloud-rate=0"},
			Want: options{DemoFlags: lifecycle.DemoFlags{Machines: lifecycle.Machines{ControlPlane: 3}, Timeout: 10 * time.Second}, faults: 0, seed: 9}},
		{Name: "negative rate", Args: []string{"--cloud-rate=-1"}, WantErr: "invalid --cloud-rate -1"},
		{Name: "faults above 1", Args: []string{"--faults=1.5"}, WantErr: "invalid --faults 1.5"},
		{Name: "negative lag", Args: []string{"--search-lag=-1"}, WantErr: "invalid --search-lag -1"},
	})
}
