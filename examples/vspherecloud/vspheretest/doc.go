// Package vspheretest runs govmomi's vCenter simulator (vcsim, VPX model) for vspherecloud's tests: New starts one
// per test with a folder for the VMs under test and a template, and a cloud.Client logged in to it whose SOAP calls
// are counted (Calls).
//
// Its template clones as vCenter does, which vcsim v0.52.0 does not quite: vcsim drops what CloneSpec.Config asks
// besides devices (extraConfig, BIOS UUID, CPUs, memory) and ignores CloneSpec.PowerOn; the template applies them
// within the clone task. Its clones run on the simulator's own clock: with WithCloneTime, a clone runs, and its VM
// exists, only once Advance has moved the clock that far, and Advance returns once the clones due have ended, so that
// a test holds a clone in flight for as long as it needs, without sleeping, and the next call sees its outcome. Now
// is that clock, for ensure.WithClock. FailNextClone fails the next clone; VMs counts the VMs of the folder, those
// that held clones will create included. SetGuestIP stands in for guest tools, and PlayGuestTools too for tests
// whose controllers run on their own (an address for every running VM without one); Delete and PowerOff act out of
// band.
package vspheretest
