package cloud

import (
	"errors"
	"fmt"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/vim25/types"
)

// ErrNotFound is wrapped by the error of a read of a VM or task that does not exist.
var ErrNotFound = errors.New("not found")

// ErrInventoryNotFound is wrapped by the error of a clone whose inventory (datacenter, folder, resource pool,
// datastore, network or template) does not exist: the spec names something the vCenter does not have, and
// nothing was created.
var ErrInventoryNotFound = errors.New("inventory not found")

// ErrInvalidSpec is wrapped by the error of a clone whose spec the template cannot satisfy (a disk smaller than
// the template's, a template without a network card): nothing was created, and retrying cannot help.
var ErrInvalidSpec = errors.New("invalid spec")

// notFound maps vCenter's "no such object" to ErrNotFound.
func notFound(err error) error {
	if err != nil && fault.Is(err, &types.ManagedObjectNotFound{}) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// inventoryNotFound maps the finder's "not found" to ErrInventoryNotFound.
func inventoryNotFound(what, path string, err error) error {
	var nf *find.NotFoundError
	if errors.As(err, &nf) {
		return fmt.Errorf("cannot find %s %q: %w: %w", what, path, ErrInventoryNotFound, err)
	}
	return fmt.Errorf("cannot find %s %q: %w", what, path, err)
}

// DuplicateName returns the MoRef value of the VM that holds the name a clone wanted, when err is vCenter's
// DuplicateName fault (the name is taken in the folder).
func DuplicateName(err error) (vm string, ok bool) {
	var dup *types.DuplicateName
	if _, ok := fault.As(err, &dup); !ok || dup.Object.Type != "VirtualMachine" {
		return "", false
	}
	return dup.Object.Value, true
}
