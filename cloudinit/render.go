package cloudinit

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"strings"
)

// DefaultSentinel is the file that Cluster API's bootstrap contract expects once the
// bootstrap succeeded; Render writes it last.
const DefaultSentinel = "/run/cluster-api/bootstrap-success.complete"

// heredocDelimiter ends the base64 content of a file. It holds '_', which base64 never
// does, so no content line can be equal to it.
const heredocDelimiter = "CAPKIT_EOF"

// RenderOption configures Render and Commands.
type RenderOption func(*renderOptions)

type renderOptions struct {
	root      string
	sentinel  string
	dryRun    bool
	dryRunLog string
	chown     *bool
}

// chownEnabled reports whether owners are applied: by default only without a root prefix.
func (o *renderOptions) chownEnabled() bool {
	if o.chown != nil {
		return *o.chown
	}
	return o.root == ""
}

// WithRoot writes every file (write_files, fstab, hosts, sudoers, authorized_keys, NTP
// configuration, mount points, shell scripts, the sentinel) under dir instead of /, so that a
// script can run in a sandbox or prepare a mounted image. Paths are resolved under dir as a
// chroot into it would resolve them: a symbolic link is followed inside dir (an absolute target
// starts at dir, ".." stops at dir, at most 40 links), so nothing is written outside dir. Devices,
// users and services are not affected: pair it
// with WithDryRun unless they should change on the running system. Under a root prefix owners
// are not applied (user names resolve against the running system, not the prefix) unless
// WithChown(true) is given. dir must be an absolute path.
func WithRoot(dir string) RenderOption { return func(o *renderOptions) { o.root = dir } }

// WithSentinel changes the file written after every step succeeded, DefaultSentinel by
// default; an empty path writes none.
func WithSentinel(path string) RenderOption { return func(o *renderOptions) { o.sentinel = path } }

// WithDryRun records the commands that change the system instead of running them: bootcmd,
// runcmd, shell scripts, user and group creation, password locks, partitioning, mkfs,
// mount, swapon, host name and service restarts. Each is appended to logPath as one line of
// bash-quoted words (printf %q), or printed on standard output when logPath is empty. Files
// are still written (under WithRoot when given). The log holds the arguments as they are,
// password hashes given to useradd included: keep it private. Commands ignores this
// option: skip the commands whose System field is true instead.
func WithDryRun(logPath string) RenderOption {
	return func(o *renderOptions) { o.dryRun, o.dryRunLog = true, logPath }
}

// WithChown applies file owners (true) or leaves files owned by the user running the
// script (false). The default is true without WithRoot and false with it.
func WithChown(enabled bool) RenderOption { return func(o *renderOptions) { o.chown = &enabled } }

func newRenderOptions(opts []RenderOption) (*renderOptions, error) {
	o := &renderOptions{sentinel: DefaultSentinel}
	for _, opt := range opts {
		opt(o)
	}
	if o.root != "" {
		if !strings.HasPrefix(o.root, "/") || hasControl(o.root) {
			return nil, fmt.Errorf("root prefix %s is not an absolute path: %w", show(o.root), ErrInvalid)
		}
		if o.root = path.Clean(o.root); o.root == "/" {
			o.root = ""
		}
	}
	if o.sentinel != "" {
		if err := validPath(o.sentinel, "sentinel"); err != nil {
			return nil, err
		}
	}
	if o.dryRun && o.dryRunLog != "" && (hasControl(o.dryRunLog) || strings.IndexByte(o.dryRunLog, 0) >= 0) {
		return nil, fmt.Errorf("dry-run log path %s holds a control character: %w", show(o.dryRunLog), ErrInvalid)
	}
	return o, nil
}

// Render returns cfg as one bash script. The script starts with set -euo pipefail and a fixed
// umask, runs the modules in cloud-init's order (bootcmd, disk_setup, fs_setup, mounts,
// hostname, users, write_files, ntp, scripts, runcmd, deferred write_files, final_message)
// and writes the sentinel only after everything succeeded. File contents are written from
// base64 in quoted heredocs; every path, owner, mode and argument is a quoted shell word; the
// script never evaluates data. The same Config and options give the same bytes.
func Render(cfg *Config, opts ...RenderOption) ([]byte, error) {
	o, steps, err := prepare(cfg, opts)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	system := false
	size := 1024
	for _, s := range steps {
		if s.fn != "" {
			used[s.fn] = true
		}
		system = system || s.system
		size += len(s.stdin)*4/3 + len(s.stdin)/38 + 128
	}
	if system {
		used["capkit_run"] = true
	}
	helperDefs := helpers(o, true)
	helperDefs["capkit_run"] = runFunc(o)

	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(scriptHeader)
	for _, s := range cfg.Skipped {
		fmt.Fprintf(&b, "# skipped: %s\n", printable(s.String()))
	}
	b.WriteString("\nset -euo pipefail\numask 022\n\n")
	for _, def := range definitions(used, helperDefs) {
		b.WriteString(def)
		b.WriteString("\n\n")
	}
	module := ""
	for _, s := range steps {
		if s.module != module {
			if module != "" {
				b.WriteByte('\n')
			}
			module = s.module
			fmt.Fprintf(&b, "# %s\n", module)
		}
		if err := writeStep(&b, s); err != nil {
			return nil, fmt.Errorf("cannot render %s: %w", s.module, err)
		}
	}
	return b.Bytes(), nil
}

const scriptHeader = `#!/bin/bash
# Rendered by capkit from cloud-config user data. Values are quoted words and file
# contents are base64 in quoted heredocs: nothing in the user data is evaluated.
# SC2016/SC1003: quoted arguments are literal on purpose. SC2317: helper functions are
# called through capkit_run.
# shellcheck disable=SC2016,SC1003,SC2317
`

// prepare validates cfg and the options and plans the steps.
func prepare(cfg *Config, opts []RenderOption) (*renderOptions, []step, error) {
	if cfg == nil {
		return nil, nil, errors.New("cannot render user data: config is nil")
	}
	o, err := newRenderOptions(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot render user data: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("cannot render user data: %w", err)
	}
	return o, plan(cfg, o), nil
}

// runFunc defines capkit_run, which runs a command, or records it in dry-run mode.
func runFunc(o *renderOptions) string {
	if !o.dryRun {
		return `capkit_run() { "$@"; }`
	}
	out := ""
	if o.dryRunLog != "" {
		q, _ := quote(o.dryRunLog)
		out = " >>" + q
	}
	return `capkit_run() {
	# capkit_run COMMAND...: records COMMAND instead of running it (dry run).
	printf -v capkit_line '%q ' "$@"
	printf '%s\n' "${capkit_line% }"` + out + `
}`
}

// writeStep writes one step as a command line, with its content as a base64 heredoc.
func writeStep(b *bytes.Buffer, s step) error {
	args := s.args
	switch {
	case s.system && s.fn != "":
		b.WriteString("capkit_run " + s.fn)
	case s.system:
		b.WriteString("capkit_run")
	case s.fn != "":
		b.WriteString(s.fn)
	default:
		b.WriteString(args[0])
		args = args[1:]
	}
	for _, a := range args {
		q, err := quote(a)
		if err != nil {
			return err
		}
		b.WriteByte(' ')
		b.WriteString(q)
	}
	if s.fn != "capkit_write" && s.fn != "capkit_fstab" {
		b.WriteByte('\n')
		return nil
	}
	b.WriteString(" <<'" + heredocDelimiter + "'\n")
	writeBase64(b, s.stdin)
	b.WriteString(heredocDelimiter + "\n")
	return nil
}

// writeBase64 writes data as base64 lines of 76 characters.
func writeBase64(b *bytes.Buffer, data []byte) {
	const line = 76
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(data)))
	base64.StdEncoding.Encode(enc, data)
	for len(enc) > 0 {
		n := min(line, len(enc))
		b.Write(enc[:n])
		b.WriteByte('\n')
		enc = enc[n:]
	}
}

// printable replaces control characters so that text stays on one comment line.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}
