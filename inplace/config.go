package inplace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Config says what a provider updates in place and how.
type Config struct {
	// Name is the prefix of the handler names Cluster API discovers, a DNS-1123 label of at most 41
	// characters (e.g. "memcloud"): <Name>-can-update-machine, <Name>-can-update-machineset and
	// <Name>-update-machine.
	Name string

	// InfraMachine is the group and kind of the provider's InfraMachine (e.g.
	// {Group: "infrastructure.memcloud.capkit.io", Kind: "MemMachine"}). Objects of another group or kind
	// are not the provider's: the CanUpdate hooks decline them, UpdateMachine fails for them.
	InfraMachine schema.GroupKind

	// InfraMachineVersion is the API version in which UpdateMachine reads the live InfraMachine and gives it to
	// Update, e.g. "v1beta2" (the version Update decodes; Cluster API sends the one of its contract).
	InfraMachineVersion string

	// Reader reads, when UpdateMachine is called, the Machine the request names and its InfraMachine from
	// the API server (the manager's client: it reads unstructured objects from the API server, not a cache).
	// It needs get on Machines (cluster.x-k8s.io) and on the InfraMachine kind. Cluster API's Runtime SDK
	// does not authenticate to an extension: only what the API server holds is acted on.
	Reader client.Reader

	// InfraMachineTemplateKind is the kind of the provider's InfraMachine template, in the same group;
	// InfraMachine.Kind+"Template" when empty.
	InfraMachineTemplateKind string

	// Mutable are the fields below the InfraMachine's spec (the template's spec.template.spec) that Update
	// changes in place, e.g. {{"flavor"}, {"tags"}}. A field covers its whole subtree: {"tags"} covers a tag
	// added, changed or removed, and tags added or removed whole. A change above a Mutable field (its parent
	// added or removed) is not covered. Lists are compared whole.
	Mutable [][]string

	// Update makes the machine's infrastructure match desired: the InfraMachine as the API server holds it
	// (read through Reader when the call arrives, never the request's copy), with the new spec Cluster API
	// wrote. Cluster API calls it again until it reports Done, also after the provider
	// restarted, and with the same spec: it must be idempotent, and it should start or check work and
	// return, not wait for it (the call has TimeoutSeconds, and ctx carries that deadline). Its error
	// message goes back to Cluster API, which shows it in the Machine's conditions and logs: it must not
	// carry secrets.
	Update func(ctx context.Context, desired *unstructured.Unstructured) (Progress, error)

	// TimeoutSeconds is how long Cluster API waits for each call, 1 to 30; 0 means 10.
	TimeoutSeconds int32

	// FailurePolicy is what Cluster API does when it cannot reach the CanUpdate handlers or read their
	// answer: FailurePolicyFail (the default, "" means it) retries with backoff, FailurePolicyIgnore rolls
	// out new Machines instead. The UpdateMachine handler is always announced with FailurePolicyFail:
	// Cluster API takes an ignored error of UpdateMachine for a finished update.
	FailurePolicy FailurePolicy
}

// Progress is what Update reports.
type Progress struct {
	// Done is true when the infrastructure matches the desired spec; Cluster API then finishes the update.
	Done bool
	// RetryAfter is when Cluster API should call again while not Done: rounded up to whole seconds, at
	// least 1 s; 0 means 5 s.
	RetryAfter time.Duration
	// Message is shown in the Machine's Updating condition ("In-place update in progress: <Message>").
	Message string
}

// DefaultTimeoutSeconds is the timeout announced when Config.TimeoutSeconds is 0, Cluster API's default.
const DefaultTimeoutSeconds = 10

// DefaultRetryAfter is the retry announced for an update in progress whose Progress has no RetryAfter.
const DefaultRetryAfter = 5 * time.Second

// Hook names, as Cluster API's catalog spells them.
const (
	hookCanUpdateMachine    = "CanUpdateMachine"
	hookCanUpdateMachineSet = "CanUpdateMachineSet"
	hookUpdateMachine       = "UpdateMachine"
	hookDiscovery           = "Discovery"
)

// Validate reports the first field of c that Cluster API or this package would reject.
func (c Config) Validate() error {
	if errs := validation.IsDNS1123Label(c.Name); len(errs) > 0 {
		return fmt.Errorf("invalid Config.Name %q: %s", c.Name, strings.Join(errs, "; "))
	}
	for _, h := range c.handlers() {
		if errs := validation.IsDNS1123Label(h.name); len(errs) > 0 {
			return fmt.Errorf("invalid Config.Name %q: handler name %q: %s", c.Name, h.name, strings.Join(errs, "; "))
		}
	}
	if c.InfraMachine.Group == "" || c.InfraMachine.Kind == "" {
		return fmt.Errorf("invalid Config.InfraMachine: group %q and kind %q must both be set", c.InfraMachine.Group, c.InfraMachine.Kind)
	}
	if c.InfraMachineVersion == "" || strings.Contains(c.InfraMachineVersion, "/") {
		return fmt.Errorf("invalid Config.InfraMachineVersion %q: name the API version Update reads, e.g. \"v1beta2\"", c.InfraMachineVersion)
	}
	if c.Reader == nil {
		return errors.New("invalid Config.Reader: nil, UpdateMachine reads the Machine and InfraMachine from the API server")
	}
	if len(c.Mutable) == 0 {
		return errors.New("invalid Config.Mutable: empty, name at least one field that Update changes in place")
	}
	for i, p := range c.Mutable {
		if len(p) == 0 {
			return fmt.Errorf("invalid Config.Mutable[%d]: empty path", i)
		}
		for j, f := range p {
			if f == "" {
				return fmt.Errorf("invalid Config.Mutable[%d]: element %d of %q is empty", i, j, p)
			}
		}
	}
	if c.Update == nil {
		return errors.New("invalid Config.Update: nil")
	}
	if c.TimeoutSeconds < 0 || c.TimeoutSeconds > 30 {
		return fmt.Errorf("invalid Config.TimeoutSeconds %d: not between 0 and 30", c.TimeoutSeconds)
	}
	switch c.FailurePolicy {
	case "", FailurePolicyFail, FailurePolicyIgnore:
	default:
		return fmt.Errorf("invalid Config.FailurePolicy %q: neither %q nor %q", c.FailurePolicy, FailurePolicyFail, FailurePolicyIgnore)
	}
	return nil
}

func (c Config) templateKind() string {
	if c.InfraMachineTemplateKind != "" {
		return c.InfraMachineTemplateKind
	}
	return c.InfraMachine.Kind + "Template"
}

func (c Config) timeout() time.Duration {
	if c.TimeoutSeconds == 0 {
		return DefaultTimeoutSeconds * time.Second
	}
	return time.Duration(c.TimeoutSeconds) * time.Second
}

type handler struct {
	hook, name    string
	failurePolicy FailurePolicy
}

// handlers are the CanUpdateMachine, CanUpdateMachineSet and UpdateMachine handlers, in that order.
func (c Config) handlers() []handler {
	fp := c.FailurePolicy
	if fp == "" {
		fp = FailurePolicyFail
	}
	return []handler{
		{hookCanUpdateMachine, c.Name + "-can-update-machine", fp},
		{hookCanUpdateMachineSet, c.Name + "-can-update-machineset", fp},
		{hookUpdateMachine, c.Name + "-update-machine", FailurePolicyFail},
	}
}

// hookPath is the path Cluster API calls for a hook and a handler name (catalog.GVHToPath); the Discovery
// hook has no handler name.
func hookPath(hook, name string) string {
	p := "/" + APIVersion + "/" + strings.ToLower(hook)
	if name != "" {
		p += "/" + strings.ToLower(name)
	}
	return p
}
