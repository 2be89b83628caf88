package scope

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/redact"
)

// BootstrapFormat is the format of bootstrap data, from the "format" key of the bootstrap Secret.
type BootstrapFormat string

// Bootstrap data formats defined by Cluster API.
const (
	// BootstrapFormatCloudConfig is cloud-init user data; it is the default when the Secret has no format.
	BootstrapFormatCloudConfig BootstrapFormat = contract.FormatCloudConfig
	// BootstrapFormatIgnition is an Ignition config.
	BootstrapFormatIgnition BootstrapFormat = contract.FormatIgnition
)

// Errors of BootstrapData; the errors never contain the data.
var (
	// ErrBootstrapDataNotReady means the Machine has no spec.bootstrap.dataSecretName yet: wait.
	ErrBootstrapDataNotReady = errors.New("bootstrap data not ready")
	// ErrBootstrapDataNotFound means the Secret named by the Machine does not exist.
	ErrBootstrapDataNotFound = errors.New("bootstrap data secret not found")
	// ErrBootstrapDataMalformed means the Secret has no or empty "value", or an unknown "format".
	ErrBootstrapDataMalformed = errors.New("bootstrap data malformed")
)

// BootstrapData reads the bootstrap data of the Machine from the Secret named by spec.bootstrap.dataSecretName
// and returns its "value" and "format" (BootstrapFormatCloudConfig when absent). The data is secret: the
// scope never logs it, and no error it returns contains it. It is read with a context whose logger discards
// everything (redact.QuietContext), and registered with the scope's Redactor (WithRedactor) and the one of
// ctx (redact.FromContext), so that a cloud error that echoes it is masked wherever the reconcile reports it.
func (s *MachineScope[T]) BootstrapData(ctx context.Context) ([]byte, BootstrapFormat, error) {
	return s.bootstrapData(ctx, "Machine "+s.Namespace()+"/"+s.machine.Name, "spec.bootstrap.dataSecretName", s.machine.BootstrapDataSecretName)
}

// bootstrapData reads the bootstrap data Secret name of owner, whose field names it.
func (s *objectScope[T]) bootstrapData(ctx context.Context, owner, field, name string) ([]byte, BootstrapFormat, error) {
	if name == "" {
		return nil, "", fmt.Errorf("cannot read the bootstrap data of %s: %s is not set: %w", owner, field, ErrBootstrapDataNotReady)
	}
	reader := s.opts.secretReader
	if reader == nil {
		reader = s.client
	}
	secret := &corev1.Secret{}
	key := client.ObjectKey{Namespace: s.Namespace(), Name: name}
	// client-go logs response bodies at high verbosity through the context's logger: not for this Secret.
	if err := reader.Get(redact.QuietContext(ctx), key, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, "", fmt.Errorf("cannot read the bootstrap data of %s: Secret %q: %w", owner, name, ErrBootstrapDataNotFound)
		}
		return nil, "", fmt.Errorf("cannot get bootstrap data Secret %s: %w", key, err)
	}
	value := secret.Data[contract.BootstrapDataKey]
	s.opts.redactor.Add(value)
	if r := redact.FromContext(ctx); r != s.opts.redactor {
		r.Add(value)
	}
	if len(value) == 0 {
		return nil, "", fmt.Errorf("cannot read the bootstrap data in Secret %s: key %q is missing or empty: %w", key, contract.BootstrapDataKey, ErrBootstrapDataMalformed)
	}
	format := BootstrapFormat(secret.Data[contract.BootstrapFormatKey])
	switch format {
	case "":
		format = BootstrapFormatCloudConfig
	case BootstrapFormatCloudConfig, BootstrapFormatIgnition:
	default:
		// The value is not quoted: it comes from the Secret.
		return nil, "", fmt.Errorf("cannot read the bootstrap data in Secret %s: key %q is neither %q nor %q: %w",
			key, contract.BootstrapFormatKey, BootstrapFormatCloudConfig, BootstrapFormatIgnition, ErrBootstrapDataMalformed)
	}
	return value, format, nil
}
