// Package reaper stops what a process started when that process ends without stopping it. capkit's test
// environments start kube-apiserver and etcd (envtest, each in its own process group, so that a Ctrl-C to the
// test run does not reach them), kube-scheduler, kwok and the Cluster API managers; a test binary that go test's
// -timeout panics, that a signal kills, or whose go test is killed, never runs the code that stops them, and
// they ran on for hours.
//
// Start runs a reaper beside the process: the process's own executable again, in a process group of its own
// (signals sent to the test run do not reach it), reading a pipe that only the process holds open. Start also
// marks every process started afterwards: the environment variable EnvRun, with a random token, is inherited by
// each child and its children. When the pipe reads end of file (the process has ended, whatever the cause, even
// SIGKILL), the reaper kills every process whose environment (/proc/PID/environ) holds that token, and exits.
// With killWithParent (test binaries), the reaper also kills the process when the process's parent (go test)
// has gone: go test does not pass its SIGTERM on.
//
// Their files outlived them too: etcd's data and the API server's certificates, about 120 MiB a test binary, until
// the disk was full. RemoveOnExit gives the reaper a folder to remove after it killed the processes.
//
// The reaper works on Linux; elsewhere Start and RemoveOnExit do nothing. A process started with an environment that
// drops EnvRun is not reaped. The reaper is not a watchdog of the processes' health.
package reaper
