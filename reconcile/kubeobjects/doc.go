// Package kubeobjects makes Kubernetes objects a ensure.Resource, for providers whose "cloud" is a Kubernetes API.
// Such objects are machines that are Pods, their bootstrap Secrets, the Service that is a control plane endpoint, in
// the management cluster or in another one reached through a kubeconfig.
//
// A provider describes one kind of object (Kind): how to build it from its spec, and optionally how to bring
// an existing one up to date (Mutate) and which of its states are transitional (Pending). New returns the
// ensure.Resource that ensure.Exists and EnsureDeleted use:
//
//   - The cloud ID of an object is "namespace/name/uid": an object deleted out of band and created again under
//     the same name is another resource, so Ensure never takes the new one for the one it tracked.
//   - Ensure's tags become labels where they are valid label values (the ownership key and the resource key
//     always are) and annotations otherwise; FindByTags selects by the labels and checks the annotations.
//   - Create is idempotent by name: an object of that name that carries the same ownership tags is returned
//     as created; one that does not is a terminal error (the name belongs to someone else). The Resource
//     declares it (ensure.IdempotentByName), and an immediate search: its client reads from the API server, whose
//     lists are consistent, so ensure.Exists writes no note before a create (ensure.Guarantees).
//   - Delete is graceful (background propagation), and an object being deleted (deletionTimestamp set) is
//     pending, so EnsureDeleted waits until it is gone.
//   - With Mutate, the Resource is a ensure.Updater: Mutate applies the spec to a copy of the object,
//     Diff reports what it changed, Update sends it with the resourceVersion it was read at.
//   - Secrets are read and written with a context whose logger discards everything (redact.QuietContext):
//     client-go logs request and response bodies through the context's logger at verbosity 8 and above.
package kubeobjects
