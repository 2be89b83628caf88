//go:build !linux

package capienv

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
