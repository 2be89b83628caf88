package capienv

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/secret"
)

// Kubeconfig returns a kubeconfig file that connects as cfg does: server, CA, and client certificate or
// bearer token (the envtest administrator has a client certificate).
func Kubeconfig(cfg *rest.Config, name string) ([]byte, error) {
	if cfg == nil || cfg.Host == "" {
		return nil, errors.New("cannot write kubeconfig: rest config has no host")
	}
	if name == "" {
		name = "envtest"
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthority:     cfg.CAFile,
		CertificateAuthorityData: cfg.CAData,
		InsecureSkipTLSVerify:    cfg.Insecure,
		TLSServerName:            cfg.ServerName,
	}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{
		ClientCertificate:     cfg.CertFile,
		ClientCertificateData: cfg.CertData,
		ClientKey:             cfg.KeyFile,
		ClientKeyData:         cfg.KeyData,
		Token:                 cfg.BearerToken,
		TokenFile:             cfg.BearerTokenFile,
		Username:              cfg.Username,
		Password:              cfg.Password,
	}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	kc.CurrentContext = name
	b, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, fmt.Errorf("cannot write kubeconfig %q: %w", name, err)
	}
	return b, nil
}

// KubeconfigSecret returns the Secret "<cluster>-kubeconfig" through which Cluster API reaches the workload
// cluster of Cluster namespace/cluster, filled with a kubeconfig for cfg. With cfg the envtest config, the
// API server doubles as the workload cluster: Cluster API's ClusterCache connects to it, Nodes created there
// give Machines their nodeRefs, and the kubeadm bootstrap provider creates its join tokens there.
//
// Create it before the first control plane Machine gets bootstrap data: a Cluster without controlPlaneRef
// otherwise gets a kubeconfig generated from its own CA, which envtest does not trust. The Secret carries
// the cluster-name label, without which the managers' Secret cache does not see it.
func KubeconfigSecret(namespace, cluster string, cfg *rest.Config) (*corev1.Secret, error) {
	if namespace == "" || cluster == "" {
		return nil, fmt.Errorf("cannot build kubeconfig Secret: namespace %q and cluster %q must not be empty", namespace, cluster)
	}
	kc, err := Kubeconfig(cfg, cluster)
	if err != nil {
		return nil, err
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace,
			Name:      secret.Name(cluster, secret.Kubeconfig),
			Labels:    map[string]string{clusterv1.ClusterNameLabel: cluster},
		},
		Type: clusterv1.ClusterSecretType,
		Data: map[string][]byte{secret.KubeconfigDataName: kc},
	}, nil
}
