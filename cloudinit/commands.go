package cloudinit

import "strings"

// Command is one step of the plan as an argv, for providers that run commands in a
// container or over a connection instead of running a script.
type Command struct {
	// Module names what the command comes from, for example "write_files[2]" or "runcmd[0]".
	Module string
	// Argv is the program and its arguments, run without a shell. Steps that need one (file
	// writes, idempotent user creation) are "sh", "-c", a constant script (set -e, then the
	// helper functions), then the values as positional parameters: data never becomes code.
	Argv []string
	// Stdin is the data to give on standard input (the raw content of a file); when nil,
	// give an empty standard input.
	Stdin []byte
	// System is true when the command changes the system beyond the files under the root
	// prefix: bootcmd, runcmd, scripts, users, disks, mounts, host name, services. These are
	// the commands a dry run leaves out.
	System bool
}

// Commands returns the plan of Render as argv lists, in the same order, with the same
// options (WithDryRun aside, see Command.System). Run them in order and stop at the first
// failure; the last one writes the sentinel. The target needs a POSIX sh and coreutils.
func Commands(cfg *Config, opts ...RenderOption) ([]Command, error) {
	o, steps, err := prepare(cfg, opts)
	if err != nil {
		return nil, err
	}
	helperDefs := helpers(o, false)
	out := make([]Command, 0, len(steps))
	for _, s := range steps {
		c := Command{Module: s.module, System: s.system, Stdin: s.stdin}
		if s.fn == "" {
			c.Argv = append([]string(nil), s.args...)
		} else {
			defs := definitions(map[string]bool{s.fn: true}, helperDefs)
			script := strings.Join(append(append([]string{"set -e"}, defs...), s.fn+` "$@"`), "\n")
			c.Argv = append([]string{"sh", "-c", script, s.fn}, s.args...)
		}
		out = append(out, c)
	}
	return out, nil
}
