// Package capkit is placeholder; see README.md.
package capkit
