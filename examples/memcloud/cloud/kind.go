package cloud

// Kind names a type of cloud resource.
type Kind string

// The resource kinds of memcloud, in dependency order: a kind may only depend on kinds listed
// before it.
const (
	// KindNetwork is an isolated address space (a VPC).
	KindNetwork Kind = "Network"
	// KindSubnet is a range of a network's addresses where instances run.
	KindSubnet Kind = "Subnet"
	// KindSecurityGroup is a set of ingress rules in a network.
	KindSecurityGroup Kind = "SecurityGroup"
	// KindLoadBalancer is a TCP load balancer in a network with a DNS name and a port.
	KindLoadBalancer Kind = "LoadBalancer"
	// KindInstanceGroup is a group of identical instances in a subnet, whose number is set with
	// Cloud.ScaleInstanceGroup (an auto scaling group). Its instances are Instance resources
	// that depend on it.
	KindInstanceGroup Kind = "InstanceGroup"
	// KindInstance is a virtual machine in a subnet.
	KindInstance Kind = "Instance"
)

// Kinds returns every kind in dependency order (networks first, instances last).
func Kinds() []Kind {
	return []Kind{KindNetwork, KindSubnet, KindSecurityGroup, KindLoadBalancer, KindInstanceGroup, KindInstance}
}

// String returns the kind's name, for example "Network".
func (k Kind) String() string { return string(k) }

// Prefix returns the prefix of the IDs of this kind, for example "net-", or "" for an unknown kind.
func (k Kind) Prefix() string { return kindNames[k].prefix }

func (k Kind) valid() bool { return k.Prefix() != "" }

// noun is the kind as written in error messages.
func (k Kind) noun() string {
	if n, ok := kindNames[k]; ok {
		return n.noun
	}
	return string(k)
}

// kindNames holds the ID prefix and the error-message noun of each kind.
var kindNames = map[Kind]struct{ prefix, noun string }{
	KindNetwork:       {"net-", "network"},
	KindSubnet:        {"subnet-", "subnet"},
	KindSecurityGroup: {"sg-", "security group"},
	KindLoadBalancer:  {"lb-", "load balancer"},
	KindInstanceGroup: {"ig-", "instance group"},
	KindInstance:      {"i-", "instance"},
}

// Verb names what a call does.
type Verb string

// The verbs of the memcloud API.
const (
	// VerbCreate creates a resource (mutating).
	VerbCreate Verb = "Create"
	// VerbGet reads one resource by ID.
	VerbGet Verb = "Get"
	// VerbDelete deletes a resource by ID (mutating).
	VerbDelete Verb = "Delete"
	// VerbFind searches resources of one kind by tags.
	VerbFind Verb = "Find"
	// VerbRegister adds an instance to a load balancer's targets (mutating).
	VerbRegister Verb = "Register"
	// VerbDeregister removes an instance from a load balancer's targets (mutating).
	VerbDeregister Verb = "Deregister"
	// VerbUpdate changes a resource in place (mutating): the rules of a security group, the
	// user data of an instance group.
	VerbUpdate Verb = "Update"
	// VerbScale changes the size of an instance group (mutating).
	VerbScale Verb = "Scale"
	// VerbResize changes the flavor of an instance (mutating).
	VerbResize Verb = "Resize"
	// VerbTag changes the tags of an instance (mutating).
	VerbTag Verb = "Tag"
	// VerbPoll reads a create operation of a kind (GetOperation), on a cloud with asynchronous
	// creates (WithAsyncCreates).
	VerbPoll Verb = "Poll"
)

// On returns the operation of this verb on resources of kind k.
func (v Verb) On(k Kind) Op { return Op{Verb: v, Kind: k} }

// Mutating reports whether calls with this verb change the cloud.
func (v Verb) Mutating() bool {
	switch v {
	case VerbCreate, VerbDelete, VerbRegister, VerbDeregister, VerbUpdate, VerbScale, VerbResize, VerbTag:
		return true
	}
	return false
}

// Op is one operation of the API, such as CreateNetwork. Call counters and scripted faults are
// keyed by Op.
type Op struct {
	// Verb is what the call does.
	Verb Verb
	// Kind is the kind of resource the call works on.
	Kind Kind
}

// String returns the operation's name, for example "CreateNetwork".
func (o Op) String() string { return string(o.Verb) + string(o.Kind) }

// Mutating reports whether the operation changes the cloud.
func (o Op) Mutating() bool { return o.Verb.Mutating() }

// valid reports whether the operation exists in the API.
func (o Op) valid() bool {
	if !o.Kind.valid() {
		return false
	}
	switch o.Verb {
	case VerbCreate, VerbGet, VerbDelete, VerbFind, VerbPoll:
		return true
	case VerbRegister, VerbDeregister:
		return o.Kind == KindLoadBalancer
	case VerbUpdate:
		return o.Kind == KindSecurityGroup || o.Kind == KindInstanceGroup
	case VerbScale:
		return o.Kind == KindInstanceGroup
	case VerbResize, VerbTag:
		return o.Kind == KindInstance
	}
	return false
}
