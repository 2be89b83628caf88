package scaffold

// The package's API, which cmd/capkit ("capkit init") and the Kubebuilder external plugin (internal/kbplugin) call.

// Options name the provider a scaffold is written for.
type Options struct {
	// Module is the Go module path of the new repository, e.g. "github.com/acme/cluster-api-provider-acme".
	Module string
	// Provider is the provider's lower-case name, e.g. "acme": the kinds become AcmeCluster, AcmeMachine,
	// AcmeClusterTemplate, AcmeMachineTemplate (and AcmeMachinePool with CreateAPI), the clusterctl provider
	// name infrastructure-acme.
	Provider string
	// Domain is the API group's domain: the group is "infrastructure.<Domain>". Default "cluster.x-k8s.io".
	Domain string
	// CapkitVersion is the capkit module version the go.mod requires (default: ReleasedVersion, the module
	// version this program was built from, else Release), with or without CapkitReplace.
	CapkitVersion string
	// CapkitReplace, when set, is a local path to a capkit checkout written as a replace directive in go.mod.
	CapkitReplace string
}

// Files are a scaffold's files by slash-separated path relative to the repository root.
type Files map[string][]byte

// Init returns every file of a new provider repository, in capkit's shape, for o.
// It fails with an error naming the field and the value when an option is not valid.
func Init(o Options) (Files, error) { return initFiles(o) }

// CreateMachinePool returns the files that add an InfraMachinePool kind (<Provider>MachinePool) to a repository
// that Init wrote for o, and the edits to files Init wrote (the controllers' registration, the tests, ...) as whole
// new contents. existing reads a file of the repository (for the edits); it returns fs.ErrNotExist for a missing file.
func CreateMachinePool(o Options, existing func(path string) ([]byte, error)) (Files, error) {
	return createMachinePool(o, existing)
}

// Write writes files under dir, creating folders; it refuses a path that is absolute or leaves dir, and (unless
// overwrite) a file that exists. It never writes outside dir: every operation goes through an os.Root, a folder that
// is a symbolic link is followed only when it stays inside dir, and a file that is a symbolic link is refused (each
// file is written to a new temporary file and renamed, so a link is never written through).
func Write(dir string, files Files, overwrite bool) error { return write(dir, files, overwrite) }
