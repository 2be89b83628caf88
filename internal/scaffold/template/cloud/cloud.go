package cloud

import (
	"context"
	"errors"
)

// Errors of the cloud, compared with errors.Is.
var (
	// ErrNotFound: the resource does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalidParameter: the request is not valid; retrying it cannot help.
	ErrInvalidParameter = errors.New("invalid parameter")
)

// Cloud is what the provider's services call.
type Cloud interface {
	LoadBalancers
	Instances
}

// LoadBalancers are the cloud's load balancers: the control plane endpoint of a cluster.
type LoadBalancers interface {
	// CreateLoadBalancer creates a load balancer with tags; a second call with the same token returns the
	// first load balancer.
	CreateLoadBalancer(ctx context.Context, spec LoadBalancerSpec, token string, tags map[string]string) (*LoadBalancer, error)
	// GetLoadBalancer returns the load balancer id.
	GetLoadBalancer(ctx context.Context, id string) (*LoadBalancer, error)
	// FindLoadBalancers returns the load balancers that carry every tag of tags, oldest first.
	FindLoadBalancers(ctx context.Context, tags map[string]string) ([]LoadBalancer, error)
	// DeleteLoadBalancer deletes the load balancer id.
	DeleteLoadBalancer(ctx context.Context, id string) error
}

// Instances are the cloud's instances (virtual machines): one per Machine.
type Instances interface {
	// CreateInstance creates an instance with tags; a second call with the same token returns the first
	// instance.
	CreateInstance(ctx context.Context, spec InstanceSpec, token string, tags map[string]string) (*Instance, error)
	// GetInstance returns the instance id.
	GetInstance(ctx context.Context, id string) (*Instance, error)
	// FindInstances returns the instances that carry every tag of tags, oldest first.
	FindInstances(ctx context.Context, tags map[string]string) ([]Instance, error)
	// DeleteInstance deletes the instance id.
	DeleteInstance(ctx context.Context, id string) error
}

// LoadBalancerSpec is a load balancer to create.
type LoadBalancerSpec struct {
	// Name is the load balancer's name.
	Name string
	// Port is the port it listens on.
	Port int32
}

// Validate checks the spec before any cloud call.
func (s LoadBalancerSpec) Validate() error {
	if s.Name == "" || s.Port < 1 || s.Port > 65535 {
		return errors.Join(ErrInvalidParameter, errors.New("a load balancer needs a name and a port from 1 to 65535"))
	}
	return nil
}

// LoadBalancer is a load balancer as the cloud reports it.
type LoadBalancer struct {
	// ID is the cloud's ID.
	ID string
	// Name and Port are those of the spec.
	Name string
	Port int32
	// Host is the DNS name clients connect to.
	Host string
	// Tags are the tags it was created with.
	Tags map[string]string
}

// InstanceState is the state of an instance.
type InstanceState string

// The states of an instance.
const (
	InstancePending InstanceState = "pending"
	InstanceRunning InstanceState = "running"
)

// InstanceSpec is an instance to create.
type InstanceSpec struct {
	// Name is the instance's name.
	Name string
	// Image and Type are the boot image and the size of the instance.
	Image, Type string
	// UserData is the bootstrap data the instance runs at first boot. It is a secret.
	UserData []byte
}

// Validate checks the spec before any cloud call.
func (s InstanceSpec) Validate() error {
	if s.Name == "" || s.Image == "" || s.Type == "" {
		return errors.Join(ErrInvalidParameter, errors.New("an instance needs a name, an image and a type"))
	}
	return nil
}

// Instance is an instance as the cloud reports it.
type Instance struct {
	// ID is the cloud's ID.
	ID string
	// Name, Image and Type are those of the spec.
	Name, Image, Type string
	// State is pending while the instance boots, then running.
	State InstanceState
	// PrivateIP is the instance's address.
	PrivateIP string
	// Tags are the tags it was created with.
	Tags map[string]string
}
