//go:build !unix

package accessorgen

// openNonblock is 0 where the system has no O_NONBLOCK: the check before opening refuses named pipes there.
const openNonblock = 0
