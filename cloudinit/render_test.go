package cloudinit

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allModules is a Config that uses every module.
func allModules() *Config {
	return &Config{
		BootCmd:    []Cmd{{Shell: "echo boot"}},
		DiskSetup:  []Disk{{Device: "/dev/sdz", TableType: "mbr", Layout: []Partition{{Percent: 100}}}},
		FSSetup:    []Filesystem{{Device: "/dev/sdz", Partition: "1", Filesystem: "ext4"}},
		Mounts:     []Mount{{Spec: "/dev/sdz1", File: "/data", Type: "ext4", Options: "defaults", Freq: "0", Passno: "2"}},
		Hostname:   Hostname{Hostname: "n1", ManageEtcHosts: "template"},
		Users:      []User{{Name: "capi", LockPasswd: true}},
		WriteFiles: []File{{Path: "/late", Owner: "root", Permissions: 0o644, Defer: true}, {Path: "/early", Owner: "root", Permissions: 0o644}},
		NTP:        &NTP{Enabled: true, Client: "systemd-timesyncd", Servers: []string{"a.example"}},
		Scripts:    []Script{{Name: "part-001", Content: []byte("#!/bin/sh\n")}},
		RunCmd:     []Cmd{{Argv: []string{"true"}}},
		// The final message is printed before the sentinel.
		FinalMessage: "bye",
	}
}

func TestRenderModuleOrder(t *testing.T) {
	script, err := Render(allModules())
	require.NoError(t, err)
	modules := regexp.MustCompile(`(?m)^# ([a-z_]+(\[\d+\])?( \(deferred\))?)$`).FindAllStringSubmatch(string(script), -1)
	var got []string
	for _, m := range modules {
		got = append(got, m[1])
	}
	assert.Equal(t, []string{
		"bootcmd[0]", "disk_setup[0]", "fs_setup[0]", "mounts", "hostname", "manage_etc_hosts", "users[0]",
		"write_files[1]", "ntp", "scripts[0]", "runcmd[0]", "write_files[0] (deferred)", "final_message", "sentinel",
	}, got)
	assert.True(t, strings.HasPrefix(string(script), "#!/bin/bash\n"))
	assert.Contains(t, string(script), "\nset -euo pipefail\numask 022\n")
	assert.True(t, strings.HasSuffix(string(script), "# sentinel\ncapkit_write '"+DefaultSentinel+"' '0644' 'root:root' 'replace' <<'CAPKIT_EOF'\nc3VjY2Vzcwo=\nCAPKIT_EOF\n"))
	checkScript(t, script)

	// Under a root prefix every helper takes the root last and resolves its path in it.
	script, err = Render(allModules(), WithRoot("/mnt/image"), WithDryRun("/var/log/capkit.log"))
	require.NoError(t, err)
	for _, step := range []string{
		"capkit_fstab '/etc/fstab' '/mnt/image' <<",
		"capkit_mountpoint '/data' '/mnt/image'\n",
		"capkit_run capkit_exec '/var/lib/capkit/scripts/part-001' '/mnt/image'\n",
		"capkit_write '/run/cluster-api/bootstrap-success.complete' '0644' 'root:root' 'replace' '/mnt/image' <<",
	} {
		assert.Contains(t, string(script), step)
	}
	checkScript(t, script)
}

func TestRenderSentinelOption(t *testing.T) {
	script, err := Render(&Config{}, WithSentinel(""))
	require.NoError(t, err)
	assert.NotContains(t, string(script), "# sentinel")
	script, err = Render(&Config{}, WithSentinel("/var/run/boot.done"))
	require.NoError(t, err)
	assert.Contains(t, string(script), "capkit_write '/var/run/boot.done' '0644' 'root:root' 'replace'")
}

func TestRenderChownDefaults(t *testing.T) {
	cfg := &Config{WriteFiles: []File{{Path: "/a", Owner: "capi:capi", Permissions: 0o600}}}
	tests := []struct {
		name  string
		opts  []RenderOption
		chown bool
	}{
		{"no root: owners applied", nil, true},
		{"root: owners not applied", []RenderOption{WithRoot("/mnt/image")}, false},
		{"root with WithChown(true)", []RenderOption{WithRoot("/mnt/image"), WithChown(true)}, true},
		{"WithChown(false)", []RenderOption{WithChown(false)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script, err := Render(cfg, tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.chown, strings.Contains(string(script), `capkit_chown() { chown -- "$1" "$2"; }`))
			assert.Equal(t, !tt.chown, strings.Contains(string(script), `capkit_chown() { :; }`))
			assert.Contains(t, string(script), "'capi:capi'", "the owner is still validated and quoted")
		})
	}
	script, err := Render(cfg, WithRoot("/mnt/image/"))
	require.NoError(t, err)
	assert.Contains(t, string(script), "capkit_write '/a' '0600' 'capi:capi' 'replace' '/mnt/image'")
}

func TestRenderDryRunToStandardOutput(t *testing.T) {
	root := t.TempDir()
	cfg := &Config{RunCmd: []Cmd{{Argv: []string{"echo", "it's $HOME"}}}, Users: []User{{Name: "capi"}}}
	script, err := Render(cfg, WithRoot(root), WithDryRun(""))
	require.NoError(t, err)
	checkScript(t, script)
	f := filepath.Join(t.TempDir(), "s.sh")
	require.NoError(t, os.WriteFile(f, script, 0o600))
	out, err := exec.Command("bash", f).Output()
	require.NoError(t, err)
	assert.Equal(t, "capkit_useradd capi --create-home\necho it\\'s\\ \\$HOME\n", string(out))
}

func TestCheckQuotedRejectsUnsafeScripts(t *testing.T) {
	for _, script := range []string{
		"capkit_write \"$x\" <<'CAPKIT_EOF'\nCAPKIT_EOF\n",
		"capkit_write 'a' <<CAPKIT_EOF\n$(x)\nCAPKIT_EOF\n",
		"capkit_run 'echo' $(touch x)\n",
		"capkit_run 'echo' a*\n",
		"eval 'x'\n",
		"x=1 capkit_run 'a'\n",
		"capkit_run 'a' | sh\n",
	} {
		assert.Error(t, checkQuoted([]byte(script)), "%q", script)
	}
	assert.NoError(t, checkQuoted([]byte("capkit_run capkit_useradd 'a' \"it's\" $'\\n'\n")))
}

func TestCommands(t *testing.T) {
	cmds, err := Commands(allModules(), WithRoot("/sandbox"), WithSentinel("/done"))
	require.NoError(t, err)
	var modules []string
	for _, c := range cmds {
		if len(modules) == 0 || modules[len(modules)-1] != c.Module {
			modules = append(modules, c.Module)
		}
	}
	assert.Equal(t, []string{
		"bootcmd[0]", "disk_setup[0]", "fs_setup[0]", "mounts", "hostname", "manage_etc_hosts", "users[0]",
		"write_files[1]", "ntp", "scripts[0]", "runcmd[0]", "write_files[0] (deferred)", "final_message", "sentinel",
	}, modules)
	assert.Equal(t, Command{Module: "bootcmd[0]", Argv: []string{"sh", "-c", "echo boot"}, System: true}, cmds[0])
	last := cmds[len(cmds)-1]
	assert.Equal(t, []string{"sh", "-c"}, last.Argv[:2])
	assert.Equal(t, []string{"capkit_write", "/done", "0644", "root:root", "replace", "/sandbox"}, last.Argv[3:])
	assert.True(t, strings.HasPrefix(last.Argv[2], "set -e\n"), "a failing command stops the helper")
	assert.Equal(t, "success\n", string(last.Stdin))
	assert.False(t, last.System)
	assert.Contains(t, last.Argv[2], "capkit_decode() { cat; }", "Commands take raw content on standard input")
	assert.Contains(t, last.Argv[2], "capkit_chown() { :; }", "no chown under a root prefix")
	for _, c := range cmds {
		if c.Argv[0] == "sh" && len(c.Argv) > 3 && strings.HasPrefix(c.Argv[3], "capkit_") {
			bashN(t, []byte(c.Argv[2]))
		}
	}
}
