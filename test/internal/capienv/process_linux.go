package capienv

import "syscall"

// sysProcAttr makes the kernel send SIGTERM to the manager when the test process dies (for instance when
// go test times out), so no manager outlives its test.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
