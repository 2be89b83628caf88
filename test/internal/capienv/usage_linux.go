package capienv

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat: 100 on every Linux architecture Go runs on.
const clockTicks = 100

// Usage is what a process has used so far.
type Usage struct {
	// CPU is user and system time.
	CPU time.Duration
	// PeakRSS is the most resident memory it has held (VmHWM).
	PeakRSS int64
}

// Usage reads the process's CPU time and peak resident memory from /proc; call it before Stop.
func (p *Process) Usage() (Usage, error) {
	pid := p.PID()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Usage{}, fmt.Errorf("cannot read the CPU time of %q: %w", p.name, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces; utime and stime are fields 14 and 15.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return Usage{}, fmt.Errorf("cannot read the CPU time of %q: /proc/%d/stat has %d fields", p.name, pid, len(fields)+2)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return Usage{}, fmt.Errorf("cannot read the CPU time of %q: %w", p.name, err)
		}
		ticks += n
	}
	u := Usage{CPU: time.Duration(ticks) * time.Second / clockTicks}
	status, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, fmt.Errorf("cannot read the memory of %q: %w", p.name, err)
	}
	defer func() { _ = status.Close() }()
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			if err != nil {
				return u, fmt.Errorf("cannot read the peak memory of %q: %w", p.name, err)
			}
			u.PeakRSS = n << 10
			return u, nil
		}
	}
	return u, fmt.Errorf("cannot read the peak memory of %q: no VmHWM in /proc/%d/status", p.name, pid)
}
