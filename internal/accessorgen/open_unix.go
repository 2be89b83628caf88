//go:build unix

package accessorgen

import "syscall"

// openNonblock opens without waiting: a named pipe put in place of a checked file opens at once, and is then
// refused, instead of blocking until a writer comes. Reading a regular file ignores it.
const openNonblock = syscall.O_NONBLOCK
