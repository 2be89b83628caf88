package identity

import "context"

// credentialsKey is the context key of ContextWithCredentials.
type credentialsKey struct{}

// PassCredentials is the Config.Credentials of a provider whose cloud client depends on more than an identity's
// credentials, such as the server an InfraCluster names (vSphere's vCenter): it returns the credentials as they are,
// for Config.Bind (ContextWithCredentials) to put into the reconcile's context, where the provider's services read
// them (CredentialsFromContext) and build the client with the InfraCluster.
func PassCredentials(_ context.Context, creds Credentials) (Credentials, error) { return creds, nil }

// ContextWithCredentials returns ctx carrying creds: the Config.Bind of a provider whose Config.Credentials is
// PassCredentials. The Binder has registered their values with the reconcile's Redactor before it binds them.
func ContextWithCredentials(ctx context.Context, creds Credentials) context.Context {
	return context.WithValue(ctx, credentialsKey{}, creds)
}

// CredentialsFromContext returns the Credentials ContextWithCredentials put into ctx; ok is false when there are
// none: the InfraCluster names no identity, or the reconciler runs without identities.
func CredentialsFromContext(ctx context.Context) (creds Credentials, ok bool) {
	creds, ok = ctx.Value(credentialsKey{}).(Credentials)
	return creds, ok
}
