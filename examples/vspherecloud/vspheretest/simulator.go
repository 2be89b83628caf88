package vspheretest

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/task"
	_ "github.com/vmware/govmomi/vapi/simulator" // vCenter's REST endpoints, for WithVAPI
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
)

// The inventory of every Simulator: vcsim's VPX model with two compute clusters of three hosts each (one datacenter,
// a distributed port group) with a folder for the VMs under test and one of the model's VMs made a template.
const (
	Datacenter   = "DC0"
	Folder       = "/DC0/vm/capkit"
	ResourcePool = "DC0_C0/Resources"
	// ComputeCluster is the compute cluster of ResourcePool, OtherComputeCluster the second one, for failure
	// domains.
	ComputeCluster      = "DC0_C0"
	OtherComputeCluster = "DC0_C1"
	Datastore           = "LocalDS_0"
	Network             = "DC0_DVPG0"
	Template            = "/DC0/vm/DC0_H0_VM0"
	// Username logs in to the simulator, with a password only Config knows.
	Username = "capkit@vsphere.local"
)

const password = "vcsim-pa55word"

// Simulator is a vCenter simulator (govmomi's vcsim) and a client of it whose SOAP calls are counted. Its template
// clones as vCenter does, which vcsim v0.52.0 does not quite (see template), and its clones can take time on the
// simulator's own clock (WithCloneTime, Advance), so that a test holds a clone in flight for as long as it needs
// without sleeping.
type Simulator struct {
	// Client is the client under test, logged in as Config says.
	Client *cloud.Client
	// Config reaches the simulator: https, its certificate not verified (Insecure).
	Config cloud.Config
	// Thumbprint is the SHA-1 thumbprint of the simulator's certificate, to pin instead (cloud.Config.Thumbprint).
	Thumbprint string
	// Inventory is the simulator's inventory (the constants of this package).
	Inventory cloud.Inventory
	// Calls counts the SOAP calls of Client since it logged in.
	Calls *Calls

	model    *simulator.Model
	server   *simulator.Server
	admin    *vim25.Client // the fixture's own session: its calls are not counted
	clones   *clones
	guestIPs atomic.Int32 // the addresses PlayGuestTools gave
	mu       sync.Mutex
	proxies  []*Endpoint
	logins   *logins
}

// logins are the passwords of Username that log in (AllowPassword).
type logins struct {
	mu       sync.Mutex
	accepted []string
}

// Option configures a Simulator.
type Option func(*settings)

type settings struct {
	cloneTime time.Duration
	vapi      bool
}

// WithCloneTime makes every clone take d on the simulator's clock: its task runs, and its VM does not exist,
// until Advance has moved the clock by d since the clone started.
func WithCloneTime(d time.Duration) Option { return func(s *settings) { s.cloneTime = d } }

// WithVAPI serves vCenter's REST API (govmomi's vapi/simulator: sessions, tags, content libraries) beside SOAP, as
// a provider that logs in to it needs: CAPV opens a REST session for its tags manager with every vCenter session.
func WithVAPI() Option { return func(s *settings) { s.vapi = true } }

// closeWait bounds Close: how long the server may take to end once every client connection was closed.
const closeWait = 10 * time.Second

// New starts a simulator for t, stopped when t ends.
func New(t testing.TB, opts ...Option) *Simulator {
	t.Helper()
	s, err := Start(opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// Start starts a simulator; Close stops it.
func Start(opts ...Option) (_ *Simulator, err error) {
	var set settings
	for _, o := range opts {
		o(&set)
	}
	ctx := context.Background()
	model := simulator.VPX()
	model.Cluster = 2
	if err := model.Create(); err != nil {
		return nil, fmt.Errorf("cannot create the simulator's inventory: %w", err)
	}
	model.Service.TLS = new(tls.Config)
	model.Service.Listen = &url.URL{User: url.UserPassword(Username, password)}
	model.Service.RegisterEndpoints = set.vapi
	logins := &logins{accepted: []string{password}}
	model.Map().SessionManager().ValidLogin = logins.valid // before the server runs
	server := model.Service.NewServer()
	pass, _ := server.URL.User.Password()
	s := &Simulator{logins: logins,
		Config:     cloud.Config{URL: server.URL.Host, Username: server.URL.User.Username(), Password: pass, Insecure: true},
		Thumbprint: server.CertificateInfo().ThumbprintSHA1,
		Inventory: cloud.Inventory{Datacenter: Datacenter, Folder: Folder, ResourcePool: ResourcePool,
			Datastore: Datastore, Network: Network, Template: Template},
		model:  model,
		server: server,
		clones: &clones{now: time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC), cloneTime: set.cloneTime},
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.admin, err = vim25.NewClient(ctx, soap.NewClient(server.URL, true)); err != nil {
		return s, fmt.Errorf("cannot connect to the simulator: %w", err)
	}
	if err := session.NewManager(s.admin).Login(ctx, server.URL.User); err != nil {
		return s, fmt.Errorf("cannot log in to the simulator: %w", err)
	}
	if err := s.prepare(); err != nil {
		return s, err
	}
	if s.Client, err = cloud.Connect(ctx, s.Config); err != nil {
		return s, err
	}
	s.Calls = Count(s.Client.Vim25())
	return s, nil
}

// Close stops the simulator and the endpoints it gave. It fails the clones still held and closes every client
// connection first, so that no client holding one (a manager that was stopped, say) keeps it running. A handler of
// vcsim's that still runs closeWait later is left behind: vcsim's WaitForUpdatesEx ends only on a change, its
// timeout or CancelWaitForUpdates, never when its client goes away.
func (s *Simulator) Close() {
	s.clones.releaseAll()
	if s.admin != nil {
		// The released clones fail now, but a task still running writes into the folder that Remove removes, which
		// then stays behind (one per test, in the temporary folder).
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		_ = s.waitTasks(ctx, true)
		cancel()
	}
	s.mu.Lock()
	proxies := s.proxies
	s.mu.Unlock()
	for _, p := range proxies {
		closeServer(p.server)
	}
	if s.server != nil {
		closeServer(s.server)
	}
	s.model.Remove()
}

// closer is an HTTP test server.
type closer interface {
	CloseClientConnections()
	Close()
}

// closeServer closes srv's client connections, then srv, waiting at most closeWait for its handlers to end.
func closeServer(srv closer) {
	srv.CloseClientConnections()
	done := make(chan struct{})
	go func() {
		srv.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(closeWait):
	}
}

// prepare creates the folder under test and makes the template: powered off, marked as a template, and cloning
// as vCenter does.
func (s *Simulator) prepare() error {
	if err := s.CreateFolder(path.Base(Folder)); err != nil {
		return err
	}
	vm, err := s.adminVM(Template)
	if err != nil {
		return err
	}
	return s.makeTemplate(vm)
}

// makeTemplate powers vm off, marks it as a template and makes it clone as vCenter does.
func (s *Simulator) makeTemplate(vm *object.VirtualMachine) error {
	ctx := context.Background()
	task, err := vm.PowerOff(ctx)
	if err == nil {
		err = task.Wait(ctx)
	}
	if err == nil {
		err = vm.MarkAsTemplate(ctx)
	}
	if err != nil {
		return fmt.Errorf("cannot make %s a template: %w", Template, err)
	}
	sim := s.model.Map().Get(vm.Reference()).(*simulator.VirtualMachine)
	s.model.Map().Put(&template{VirtualMachine: sim, clones: s.clones})
	return nil
}

// RemoveTemplate destroys the template out of band, as an admin does: a client that found it before finds its
// MoRef gone (ManagedObjectNotFound).
func (s *Simulator) RemoveTemplate() error {
	vm, err := s.adminVM(Template)
	if err != nil {
		return err
	}
	ctx := context.Background()
	task, err := vm.Destroy(ctx)
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("cannot destroy template %s: %w", Template, err)
	}
	return nil
}

// ReplaceTemplate destroys the template and makes the model's VM of inventory path vm ("/DC0/vm/DC0_H0_VM1") the
// template in its place, at the same path, under another MoRef: as an admin replaces a template with a new version.
func (s *Simulator) ReplaceTemplate(vm string) error {
	if err := s.RemoveTemplate(); err != nil {
		return err
	}
	next, err := s.adminVM(vm)
	if err != nil {
		return err
	}
	ctx := context.Background()
	task, err := next.Rename(ctx, path.Base(Template))
	if err == nil {
		err = task.Wait(ctx)
	}
	if err != nil {
		return fmt.Errorf("cannot rename %s to %s: %w", vm, Template, err)
	}
	return s.makeTemplate(next)
}

// CreateFolder creates the VM folder name under the datacenter's VM folder ("/DC0/vm/<name>") out of band.
func (s *Simulator) CreateFolder(name string) error {
	ctx := context.Background()
	dc, err := find.NewFinder(s.admin, false).Datacenter(ctx, Datacenter)
	if err != nil {
		return fmt.Errorf("cannot find the simulator's datacenter: %w", err)
	}
	folders, err := dc.Folders(ctx)
	if err != nil {
		return fmt.Errorf("cannot read the simulator's folders: %w", err)
	}
	if _, err := folders.VmFolder.CreateFolder(ctx, name); err != nil {
		return fmt.Errorf("cannot create folder %s: %w", name, err)
	}
	return nil
}

// adminVM returns the VM at inventory path p, through the fixture's own session.
func (s *Simulator) adminVM(p string) (*object.VirtualMachine, error) {
	ctx := context.Background()
	f := find.NewFinder(s.admin, false)
	dc, err := f.Datacenter(ctx, Datacenter)
	if err != nil {
		return nil, fmt.Errorf("cannot find the simulator's datacenter: %w", err)
	}
	vm, err := f.SetDatacenter(dc).VirtualMachine(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("cannot find VM %s: %w", p, err)
	}
	return vm, nil
}

// Advance moves the simulator's clock by d, lets the clones whose time has come run, and waits until they have
// ended, so that the next call sees their outcome.
func (s *Simulator) Advance(d time.Duration) { s.clones.advance(d) }

// SetCloneTime makes the clones that start from now on take d on the simulator's clock, as WithCloneTime does.
func (s *Simulator) SetCloneTime(d time.Duration) {
	s.clones.mu.Lock()
	defer s.clones.mu.Unlock()
	s.clones.cloneTime = d
}

// OnClone calls f (nil: nothing) with the VM's name when a clone is asked for, before the task is created and
// before the caller has its answer: the moment to stop a manager to crash it between its clone call and its
// record of the task.
func (s *Simulator) OnClone(f func(name string)) {
	s.clones.mu.Lock()
	defer s.clones.mu.Unlock()
	s.clones.onClone = f
}

// FailNextClone makes the next clone fail (a SystemError fault) when it runs, having created nothing.
func (s *Simulator) FailNextClone() { s.clones.failNext() }

// Clones returns how many clones have started, held ones included.
func (s *Simulator) Clones() int { return s.clones.count() }

// VMs returns how many VMs the folder under test holds, with those that clones in flight will create (a clone
// whose name is taken will fail, and is not counted).
func (s *Simulator) VMs(t testing.TB) int {
	t.Helper()
	names := map[string]bool{}
	for _, vm := range s.list(t) {
		names[vm.Name()] = true
	}
	for _, name := range s.clones.held() {
		names[name] = true
	}
	return len(names)
}

// UUIDs returns the BIOS UUID of each VM of the folder under test, by name: the VMs themselves, not the clones in
// flight (VMs counts those too).
func (s *Simulator) UUIDs(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, vm := range s.list(t) {
		var o mo.VirtualMachine
		require.NoError(t, vm.Properties(context.Background(), vm.Reference(), []string{"name", "config.uuid"}, &o))
		require.NotNil(t, o.Config, "VM %s has no configuration", vm.Reference().Value)
		out[o.Name] = o.Config.Uuid
	}
	return out
}

// list returns the VMs of the folder under test.
func (s *Simulator) list(t testing.TB) []*object.VirtualMachine {
	t.Helper()
	vms, err := s.folderVMs()
	require.NoError(t, err)
	return vms
}

// folderVMs returns the VMs of the folder under test.
func (s *Simulator) folderVMs() ([]*object.VirtualMachine, error) {
	f := find.NewFinder(s.admin, false)
	dc, err := f.Datacenter(context.Background(), Datacenter)
	if err != nil {
		return nil, err
	}
	vms, err := f.SetDatacenter(dc).VirtualMachineList(context.Background(), Folder+"/*")
	var none *find.NotFoundError
	if errors.As(err, &none) {
		return nil, nil
	}
	return vms, err
}

// PlayGuestTools stands in for guest tools on every VM of the folder under test, for tests whose controllers run on
// their own: a powered-on VM that reports no address gets one (10.0.0.<n>, a new n for each), as SetGuestIP gives
// it. It returns how many VMs it gave an address.
func (s *Simulator) PlayGuestTools() (int, error) {
	vms, err := s.folderVMs()
	if err != nil {
		return 0, err
	}
	given := 0
	for _, vm := range vms {
		var o mo.VirtualMachine
		if err := vm.Properties(context.Background(), vm.Reference(), []string{"config.uuid", "runtime.powerState", "guest.ipAddress"}, &o); err != nil {
			return given, err
		}
		if o.Config == nil || o.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOn || (o.Guest != nil && o.Guest.IpAddress != "") {
			continue
		}
		if err := s.SetGuestIP(o.Config.Uuid, fmt.Sprintf("10.0.0.%d", 10+s.guestIPs.Add(1))); err != nil {
			return given, err
		}
		given++
	}
	return given, nil
}

// vm returns the VM with BIOS UUID uuid, through the fixture's own session.
func (s *Simulator) vm(uuid string) (*object.VirtualMachine, error) {
	ref, err := object.NewSearchIndex(s.admin).FindByUuid(context.Background(), nil, uuid, true, nil)
	if err != nil || ref == nil {
		return nil, &find.NotFoundError{}
	}
	return ref.(*object.VirtualMachine), nil
}

// SetGuestIP stands in for guest tools: the VM with BIOS UUID uuid reports ip ("" for none) as the address of
// its first network card (vcsim's "SET.guest.ipAddress" extraConfig key).
func (s *Simulator) SetGuestIP(uuid, ip string) error {
	return s.reconfigure(uuid, types.VirtualMachineConfigSpec{
		ExtraConfig: []types.BaseOptionValue{&types.OptionValue{Key: "SET.guest.ipAddress", Value: ip}}})
}

// reconfigure reconfigures the VM with BIOS UUID uuid out of band.
func (s *Simulator) reconfigure(uuid string, spec types.VirtualMachineConfigSpec) error {
	vm, err := s.vm(uuid)
	if err != nil {
		return err
	}
	ctx := context.Background()
	task, err := vm.Reconfigure(ctx, spec)
	if err != nil {
		return err
	}
	return task.Wait(ctx)
}

// WaitTask waits until the vCenter task ref has ended.
func (s *Simulator) WaitTask(ref string) error {
	_, err := object.NewTask(s.admin, types.ManagedObjectReference{Type: "Task", Value: ref}).WaitForResult(context.Background())
	return err
}

// PowerOff powers off the VM with BIOS UUID uuid out of band.
func (s *Simulator) PowerOff(uuid string) error {
	vm, err := s.vm(uuid)
	if err != nil {
		return err
	}
	ctx := context.Background()
	task, err := vm.PowerOff(ctx)
	if err != nil {
		return err
	}
	return task.Wait(ctx)
}

// Delete powers off and destroys the VM with BIOS UUID uuid out of band, as a person in the vSphere client does.
func (s *Simulator) Delete(uuid string) error {
	vm, err := s.vm(uuid)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if state, err := vm.PowerState(ctx); err == nil && state == types.VirtualMachinePowerStatePoweredOn {
		if err := s.PowerOff(uuid); err != nil {
			return err
		}
	}
	task, err := vm.Destroy(ctx)
	if err != nil {
		return err
	}
	return task.Wait(ctx)
}

// Inspect reads the VM with BIOS UUID uuid through the fixture's own session: its configuration (extraConfig
// included) and runtime.
func (s *Simulator) Inspect(uuid string) (mo.VirtualMachine, error) {
	var out mo.VirtualMachine
	vm, err := s.vm(uuid)
	if err != nil {
		return out, err
	}
	err = vm.Properties(context.Background(), vm.Reference(), []string{"config", "runtime", "resourcePool", "datastore", "parent"}, &out)
	return out, err
}

// ComputeClusterOf returns the name of the compute cluster whose resource pool the VM with BIOS UUID uuid runs in.
func (s *Simulator) ComputeClusterOf(uuid string) (string, error) {
	vm, err := s.Inspect(uuid)
	if err != nil || vm.ResourcePool == nil {
		return "", cmp.Or(err, fmt.Errorf("VM %s has no resource pool", uuid))
	}
	ctx := context.Background()
	var pool mo.ResourcePool
	if err := property.DefaultCollector(s.admin).RetrieveOne(ctx, *vm.ResourcePool, []string{"owner"}, &pool); err != nil {
		return "", fmt.Errorf("cannot read the resource pool of VM %s: %w", uuid, err)
	}
	var owner mo.ManagedEntity
	if err := property.DefaultCollector(s.admin).RetrieveOne(ctx, pool.Owner, []string{"name"}, &owner); err != nil {
		return "", fmt.Errorf("cannot read the owner of the resource pool of VM %s: %w", uuid, err)
	}
	return owner.Name, nil
}

// Now returns the time on the simulator's clock, which moves only by Advance: give it to ensure
// (ensure.WithClock), so that a search lag passes as the clones run.
func (s *Simulator) Now() time.Time { return s.clones.clock() }

// AllowPassword makes password log in as Username too, besides the passwords allowed before: a password rotated in
// vCenter, which sessions logged in with the old one outlive.
func (s *Simulator) AllowPassword(password string) {
	s.logins.mu.Lock()
	defer s.logins.mu.Unlock()
	s.logins.accepted = append(s.logins.accepted, password)
}

// valid is vcsim's check of a Login.
func (l *logins) valid(req *types.Login) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return req.UserName == Username && slices.Contains(l.accepted, req.Password)
}

// Sessions returns how many sessions are logged in to the simulator, Client's included and the fixture's own not.
func (s *Simulator) Sessions(t testing.TB) int {
	t.Helper()
	var m mo.SessionManager
	require.NoError(t, property.DefaultCollector(s.admin).RetrieveOne(context.Background(),
		*s.admin.ServiceContent.SessionManager, []string{"sessionList"}, &m))
	return len(m.SessionList) - 1
}

// WaitVMTasks waits until every task of the VM with BIOS UUID uuid has ended (failed ones too), as a vCenter client
// waits before it looks at the VM again; a VM that does not exist has none.
func (s *Simulator) WaitVMTasks(uuid string) error {
	vm, err := s.vm(uuid)
	if err != nil {
		return nil //nolint:nilerr // no VM, no task
	}
	ctx := context.Background()
	var o mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"recentTask"}, &o); err != nil {
		if _, gone := s.vm(uuid); gone != nil {
			return nil // destroyed meanwhile: its tasks have ended
		}
		return err
	}
	for _, ref := range o.RecentTask {
		var failed task.Error
		if err := s.WaitTask(ref.Value); err != nil && !errors.As(err, &failed) {
			return err
		}
	}
	return nil
}

// WaitTasks waits until every task of the simulator that is not a clone has ended (failed ones too): the power-offs
// and destroys a step started, which vcsim runs in the background. A test that reconciles again only after it never
// has a step meet a task of its previous reconcile half done (vcsim runs two destroys of one VM at once, and can
// crash on the files they both remove). Clones are left alone: they end on the simulator's clock (Advance).
func (s *Simulator) WaitTasks() error {
	return s.waitTasks(context.Background(), false)
}

// waitTasks waits until every task that is not a clone has ended, and clones too with clones.
func (s *Simulator) waitTasks(ctx context.Context, clones bool) error {
	pc := property.DefaultCollector(s.admin)
	var tm mo.TaskManager
	if err := pc.RetrieveOne(ctx, *s.admin.ServiceContent.TaskManager, []string{"recentTask"}, &tm); err != nil {
		return fmt.Errorf("cannot read the simulator's recent tasks: %w", err)
	}
	if len(tm.RecentTask) == 0 {
		return nil
	}
	var tasks []mo.Task
	if err := pc.Retrieve(ctx, tm.RecentTask, []string{"info"}, &tasks); err != nil {
		return fmt.Errorf("cannot read the simulator's recent tasks: %w", err)
	}
	for _, t := range tasks {
		running := t.Info.State == types.TaskInfoStateQueued || t.Info.State == types.TaskInfoStateRunning
		if !running || (!clones && strings.HasPrefix(t.Info.DescriptionId, "VirtualMachine.clone")) { // vcsim's "VirtualMachine.cloneVm"
			continue
		}
		var failed task.Error
		_, err := object.NewTask(s.admin, types.ManagedObjectReference{Type: "Task", Value: t.Info.Key}).WaitForResult(ctx)
		if err != nil && !errors.As(err, &failed) {
			return err
		}
	}
	return nil
}
