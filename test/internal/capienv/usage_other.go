//go:build !linux

package capienv

import (
	"errors"
	"time"
)

// Usage is what a process has used so far.
type Usage struct {
	// CPU is user and system time.
	CPU time.Duration
	// PeakRSS is the most resident memory it has held.
	PeakRSS int64
}

// Usage reads /proc, which only Linux has.
func (p *Process) Usage() (Usage, error) {
	return Usage{}, errors.New("cannot read a process's usage: /proc is Linux's")
}
