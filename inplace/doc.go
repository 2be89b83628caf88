// Package inplace serves Cluster API's in-place update hooks for an infrastructure provider that can change some fields
// of a running machine without replacing it. The hooks are the Runtime SDK's hooks.runtime.cluster.x-k8s.io/v1alpha1 of
// Cluster API v1.14; the fields are such as the machine's flavor or its tags.
//
// # What Cluster API does
//
// With the RuntimeSDK and InPlaceUpdates feature gates on, when a MachineDeployment's template changes (its
// spec.template.spec.infrastructureRef points at a new InfraMachine template), the MachineDeployment
// controller asks the one extension registered for CanUpdateMachineSet whether it can turn the old
// MachineSet's Machines into the new one's. The request holds both MachineSets and their InfraMachine and
// bootstrap templates; the extension answers with patches that, applied to the current objects, cover the
// changes it makes in place. Cluster API applies them and compares with the desired objects: when
// everything matches, it moves the old Machines to the new MachineSet, writes the new spec into each
// InfraMachine (same name, same UID) and calls UpdateMachine for the Machine until the extension reports it
// done. Otherwise it rolls out new Machines as usual. The KubeadmControlPlane controller asks the same per
// Machine with CanUpdateMachine.
//
// # What the provider declares
//
// A Config: the kind of its InfraMachine, the fields below its spec that it changes in place (Mutable), and
// an idempotent Update that makes the machine match the InfraMachine it is given. The package computes the
// answers: a MachineSet whose InfraMachine template changed only under Mutable fields gets one RFC 6902
// JSON patch of the template's spec.template.spec; anything else (a field not covered, a Kubernetes
// version or failure domain, a bootstrap template change, another provider's kind) is declined with a
// message, which makes Cluster API roll out. Declining is always a Success: a Failure would block the
// MachineDeployment.
//
// NewHandler serves discovery and the three hooks on a server of the provider's own; Register adds them to
// controller-runtime's webhook server, so that the extension shares the manager's webhook certificate. An
// ExtensionConfig (runtime.cluster.x-k8s.io/v1beta2, cluster-scoped) then points Cluster API at it:
//
//	apiVersion: runtime.cluster.x-k8s.io/v1beta2
//	kind: ExtensionConfig
//	metadata:
//	  name: memcloud
//	  annotations:
//	    runtime.cluster.x-k8s.io/inject-ca-from-secret: memcloud-system/memcloud-webhook-service-cert
//	spec:
//	  clientConfig:
//	    service: {namespace: memcloud-system, name: memcloud-webhook-service, port: 443}
//
// # Trust
//
// Cluster API's Runtime SDK does not authenticate to an extension: any pod that reaches the port can post a
// request. UpdateMachine therefore acts only on what the API server holds: it reads the Machine the request
// names through Config.Reader, checks that Cluster API is updating it in place with this extension
// (UpdateInProgressAnnotation, UpdateMachine in PendingHooksAnnotation, spec.infrastructureRef naming the
// request's InfraMachine), reads that InfraMachine (owned by the Machine, labelled for its cluster, also
// marked) and calls Update with it. Every other request is refused with one message that reveals nothing. The
// CanUpdate hooks change nothing; their cost is linear in the request (each object is walked once, a change
// under a Mutable field is patched as one operation of the whole field, the first other change declines).
//
// # Limits
//
//   - Cluster API allows one extension per hook in the whole management cluster (two are an error), and
//     selects handlers only by the ExtensionConfig's namespaceSelector: the extension also receives other
//     providers' MachineSets, which it declines (cluster-api#13285).
//   - MachineDeployments update in place only with the RollingUpdate strategy, never OnDelete.
//   - Templates are replaced, not edited: Cluster API compares the template refs, so editing a template in
//     place triggers nothing. Create a new template and point the MachineDeployment at it.
//   - Cluster API caches each CanUpdateMachineSet answer for 24 hours per pair of MachineSets: after a
//     "no", upgrading the provider to cover the field does not change that pair's rollout.
//   - Only the InfraMachine is patched. Machine fields Cluster API compares (version, failureDomain) and
//     bootstrap changes are declined, since an infrastructure provider does not make them.
//   - Update's errors, panics and messages are reported to Cluster API, which shows them in the Machine's
//     conditions. Each call's context carries a Redactor of its own (redact.FromContext): the credentials an
//     identity binder resolves, and bootstrap data a scope reads, with that context are masked in them.
//     Anything else must not carry secrets.
package inplace
