// Package identity resolves the cloud credentials of a workload cluster from an identity object, for
// providers that serve many tenants from one management cluster.
//
// An identity is a cluster-scoped object of the provider (memcloud's MemClusterIdentity, CAPA's
// AWSClusterStaticIdentity, CAPZ's AzureClusterIdentity) that names a credentials Secret in the provider's own
// namespace and says which namespaces may use it (AllowedNamespaces). An InfraCluster references one by kind
// and name (Ref). A Resolver checks, for a cluster in a namespace, that the identity exists, that the namespace
// is allowed, and that the Secret exists and holds the required keys; it refuses otherwise with a RefusedError
// whose Reason is a condition reason and whose message names the identity, the namespace, the Secret and the
// missing keys, never a value. Credentials never print their data, and hold it inside a function value where
// reflection-based printers (go-spew, testify's diffs, k8s.io/utils/dump) cannot reach it. The Secret is read
// with a context whose logger discards everything (redact.QuietContext): client-go logs response bodies
// through the context's logger, which would show the Secret's data (base64) at verbosity 8, even through an
// uncached API reader (WithSecretReader).
//
// A Binder puts the provider's cloud client for a cluster's credentials into the context of a reconcile. It
// builds the client once and reuses it while the Secret is unchanged; a rotated Secret, a changed
// allowedNamespaces or a deleted identity takes effect at the next reconcile. At every bind it registers the
// credentials' values with the Redactor of the reconcile (redact.FromContext), so that a cloud error that
// echoes them is masked in conditions, events, logs and the returned error. reconcile.WithIdentities makes it,
// from a provider's Config, a one-line option of capkit's reconcilers, which then refuse with the IdentityReady condition before any
// cloud call, and reconcile the InfraClusters that use an identity when it or its Secret changes. A provider whose
// client needs more than the credentials, such as the server its InfraCluster names, binds the credentials themselves
// (Config.Credentials PassCredentials, Config.Bind ContextWithCredentials) and reads them in its services
// (CredentialsFromContext). A Binder built from a Config with Close closes the client it replaces.
//
// Clients is the keyed client cache of such a provider, or of one whose InfraClusters name a credentials Secret
// (SecretCache): one client per endpoint and credentials, shared by the clusters that use them; a client no cluster
// uses any more, after a rotation or the cluster's delete (Release), is closed.
//
// AllowedNamespaces follows Cluster API Provider AWS's identities (a namespace is allowed when it is in list
// or matches selector; nil, an empty list and an empty selector match nothing) with one exception, for
// safety: CAPA lets an empty allowedNamespaces ({}) allow every namespace, so an edit that removes the last
// namespace of the list (which omitempty then drops) would open the identity to every tenant. Here {} allows
// none; every namespace is allowed only by a selector that says so, such as
// {matchExpressions: [{key: kubernetes.io/metadata.name, operator: Exists}]}.
package identity
