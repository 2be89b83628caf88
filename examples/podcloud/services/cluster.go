package services

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/kubeobjects"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// ClusterScope is the scope the cluster services work on.
type ClusterScope = scope.ClusterScoper[*v1beta2.PodCluster]

var errNilClient = errors.New("client of the target cluster must not be nil")

// ServiceAccount is the step that keeps the ServiceAccount the cluster's Pods run as. It mounts no API token:
// a node Pod has no business with the target cluster's API.
type ServiceAccount struct {
	target client.Client
}

// NewServiceAccount returns the ServiceAccount step on the target cluster.
func NewServiceAccount(target client.Client) (*ServiceAccount, error) {
	if target == nil {
		return nil, fmt.Errorf("cannot create the service account step: %w", errNilClient)
	}
	return &ServiceAccount{target: target}, nil
}

// serviceAccounts are the ServiceAccounts of namespace ns; the spec is the name.
func serviceAccounts(c client.Client, ns string) (ensure.Resource[string, *corev1.ServiceAccount], error) {
	return kubeobjects.New(c, kubeobjects.Kind[string, *corev1.ServiceAccount]{
		Object:    &corev1.ServiceAccount{},
		List:      &corev1.ServiceAccountList{},
		Namespace: ns,
		Validate: func(name string) error {
			if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
				return fmt.Errorf("service account name %q: %s", name, strings.Join(errs, "; "))
			}
			return nil
		},
		Build: func(name string) (*corev1.ServiceAccount, error) {
			return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				AutomountServiceAccountToken: ptr.To(false)}, nil
		},
	})
}

// Reconcile ensures the ServiceAccount exists.
func (a *ServiceAccount) Reconcile(ctx context.Context, s ClusterScope) (step.Result, error) {
	pc := s.InfraCluster()
	r, err := serviceAccounts(a.target, pc.TargetNamespace())
	if err != nil {
		return step.Result{}, err
	}
	res, err := ensure.Exists(ctx, s, KeyServiceAccount, r, ensure.Given(ServiceAccountName(s.Cluster().Name)),
		clusterTags(s.Cluster().Name))
	if err != nil {
		return step.Result{}, err
	}
	return res.Result, nil
}

// Delete deletes the ServiceAccount.
func (a *ServiceAccount) Delete(ctx context.Context, s ClusterScope) (step.Result, error) {
	r, err := serviceAccounts(a.target, s.InfraCluster().TargetNamespace())
	if err != nil {
		return step.Result{}, err
	}
	return ensure.Deleted(ctx, s, KeyServiceAccount, r)
}

// Endpoint is the step that keeps the Service in front of the control plane Pods and sets the PodCluster's
// spec.controlPlaneEndpoint to its address. The Service's selector and ports are put back when changed
// behind podcloud's back; its type and port cannot change (the webhook refuses it).
type Endpoint struct {
	target client.Client
}

// NewEndpoint returns the Endpoint step on the target cluster.
func NewEndpoint(target client.Client) (*Endpoint, error) {
	if target == nil {
		return nil, fmt.Errorf("cannot create the endpoint step: %w", errNilClient)
	}
	return &Endpoint{target: target}, nil
}

// ServiceSpec is what the Endpoint step wants of the control plane Service.
type ServiceSpec struct {
	Namespace, Name, Cluster string
	Type                     v1beta2.ServiceType
	Port                     int32
	// ClusterIP asks for this cluster IP when the Service is created: the one spec.controlPlaneEndpoint already
	// names, when the Service was deleted behind podcloud's back.
	ClusterIP string
}

func (s ServiceSpec) selector() map[string]string {
	return map[string]string{LabelCluster: s.Cluster, LabelRole: RoleControlPlane}
}

func (s ServiceSpec) ports() []corev1.ServicePort {
	return []corev1.ServicePort{{Name: "apiserver", Protocol: corev1.ProtocolTCP, Port: s.Port, TargetPort: intstr.FromInt32(s.Port)}}
}

// controlPlaneServices are the control plane Services of namespace ns.
func controlPlaneServices(c client.Client, ns string) (ensure.Resource[ServiceSpec, *corev1.Service], error) {
	return kubeobjects.New(c, kubeobjects.Kind[ServiceSpec, *corev1.Service]{
		Object:    &corev1.Service{},
		List:      &corev1.ServiceList{},
		Namespace: ns,
		Validate: func(s ServiceSpec) error {
			var errs []string
			for field, msgs := range map[string][]string{
				"name":    validation.IsDNS1035Label(s.Name),
				"port":    validation.IsValidPortNum(int(s.Port)),
				"cluster": validation.IsValidLabelValue(s.Cluster),
			} {
				for _, m := range msgs {
					errs = append(errs, field+": "+m)
				}
			}
			switch s.Type {
			case v1beta2.ServiceClusterIP, v1beta2.ServiceNodePort, v1beta2.ServiceLoadBalancer:
			default:
				errs = append(errs, fmt.Sprintf("type %q is not ClusterIP, NodePort or LoadBalancer", s.Type))
			}
			if len(errs) > 0 {
				slices.Sort(errs)
				return fmt.Errorf("service %q: %s", s.Name, strings.Join(errs, "; "))
			}
			return nil
		},
		Build: func(s ServiceSpec) (*corev1.Service, error) {
			return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceType(s.Type), ClusterIP: s.ClusterIP, Selector: s.selector(), Ports: s.ports()}}, nil
		},
		Mutate: func(s ServiceSpec, svc *corev1.Service) (changed []string, replace bool) {
			if string(svc.Spec.Type) != string(s.Type) {
				return []string{"spec.type"}, true
			}
			if !maps.Equal(svc.Spec.Selector, s.selector()) {
				svc.Spec.Selector = s.selector()
				changed = append(changed, "spec.selector")
			}
			if want := s.ports(); len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != s.Port ||
				svc.Spec.Ports[0].TargetPort != want[0].TargetPort || svc.Spec.Ports[0].Protocol != corev1.ProtocolTCP {
				want[0].NodePort = nodePort(svc)
				svc.Spec.Ports = want
				changed = append(changed, "spec.ports")
			}
			return changed, false
		},
		Pending: func(svc *corev1.Service) (string, string, bool) {
			if svc.Spec.Type == corev1.ServiceTypeLoadBalancer && serviceHost(svc) == "" {
				return ReasonLoadBalancerPending, "load balancer of Service " + svc.Name + " has no address yet", true
			}
			return "", "", false
		},
	})
}

// nodePort keeps the node port the API server allocated, so that putting the ports back does not move it.
func nodePort(svc *corev1.Service) int32 {
	if len(svc.Spec.Ports) == 0 {
		return 0
	}
	return svc.Spec.Ports[0].NodePort
}

// serviceHost is the address the API servers are reached at: the load balancer's for a LoadBalancer, the
// cluster IP otherwise.
func serviceHost(svc *corev1.Service) string {
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		for _, in := range svc.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				return in.IP
			}
			if in.Hostname != "" {
				return in.Hostname
			}
		}
		return ""
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return ""
	}
	return svc.Spec.ClusterIP
}

// Reconcile ensures the Service exists and is up to date, sets spec.controlPlaneEndpoint (unless the user
// set it) and marks the PodCluster provisioned.
func (e *Endpoint) Reconcile(ctx context.Context, s ClusterScope) (step.Result, error) {
	pc := s.InfraCluster()
	spec := pc.Spec.DeepCopy()
	webhooks.DefaultPodClusterSpec(spec)
	want := ServiceSpec{Namespace: pc.TargetNamespace(), Name: ServiceName(s.Cluster().Name), Cluster: s.Cluster().Name,
		Type: spec.ControlPlaneService.Type, Port: spec.ControlPlaneService.Port}
	r, err := controlPlaneServices(e.target, want.Namespace)
	if err != nil {
		return step.Result{}, err
	}
	_, hadService := s.ResourceID(KeyEndpoint)
	ep := pc.Spec.ControlPlaneEndpoint
	ours := hadService && net.ParseIP(ep.Host) != nil // the cluster IP of a Service podcloud made
	if ours {
		want.ClusterIP = ep.Host // a Service deleted behind podcloud's back comes back at the same address
	}
	res, err := ensure.Exists(ctx, s, KeyEndpoint, r, ensure.Given(want), clusterTags(s.Cluster().Name))
	if err != nil || !res.Result.Done {
		return res.Result, err
	}
	host := serviceHost(res.Observed)
	if host == "" {
		return step.Result{}, step.Terminal(conditions.ReasonInvalidParameters,
			fmt.Errorf("service %q has no address (cluster IP %q)", res.Observed.Name, res.Observed.Spec.ClusterIP))
	}
	if ours && res.Action == ensure.ActionCreated && ep.Host != host {
		return step.Result{}, step.Terminal(conditions.ReasonResourceDeleted,
			fmt.Errorf("service %q was deleted outside the controller and created again at %s, but spec.controlPlaneEndpoint %s:%d cannot change",
				res.Observed.Name, host, ep.Host, ep.Port))
	}
	if pc.Spec.ControlPlaneEndpoint.IsZero() {
		pc.SetControlPlaneEndpoint(contract.APIEndpoint{Host: host, Port: want.Port})
	}
	pc.Status.ObservedGeneration = pc.Generation
	pc.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// Delete deletes the Service.
func (e *Endpoint) Delete(ctx context.Context, s ClusterScope) (step.Result, error) {
	r, err := controlPlaneServices(e.target, s.InfraCluster().TargetNamespace())
	if err != nil {
		return step.Result{}, err
	}
	return ensure.Deleted(ctx, s, KeyEndpoint, r)
}

// FailureDomains is the step that reports the zones of the target cluster's nodes (label
// topology.kubernetes.io/zone) as the PodCluster's status.failureDomains, every one suitable for control
// plane machines. A target cluster without zones has no failure domains, and Cluster API places machines
// anywhere.
type FailureDomains struct {
	nodes client.Reader
}

// NewFailureDomains returns the FailureDomains step, which lists the nodes through nodes (in a manager, its
// cached client of the target cluster, so that a steady-state reconcile sends no request).
func NewFailureDomains(nodes client.Reader) (*FailureDomains, error) {
	if nodes == nil {
		return nil, fmt.Errorf("cannot create the failure domains step: %w", errNilClient)
	}
	return &FailureDomains{nodes: nodes}, nil
}

// Reconcile lists the nodes and sets status.failureDomains to their zones, sorted.
func (f *FailureDomains) Reconcile(ctx context.Context, s ClusterScope) (step.Result, error) {
	list := &corev1.NodeList{}
	if err := f.nodes.List(ctx, list); err != nil {
		return step.Result{}, fmt.Errorf("cannot list the nodes of the target cluster: %w", err)
	}
	var zones []string
	for _, n := range list.Items {
		if z := n.Labels[corev1.LabelTopologyZone]; z != "" && !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	slices.Sort(zones)
	var fds []contract.FailureDomain // nil, not empty, without zones: nothing to patch
	for _, z := range zones {
		fds = append(fds, contract.FailureDomain{Name: z, ControlPlane: ptr.To(true)})
	}
	s.InfraCluster().SetFailureDomains(fds)
	return step.Result{Done: true}, nil
}

// Delete has nothing to delete.
func (f *FailureDomains) Delete(context.Context, ClusterScope) (step.Result, error) {
	return step.Result{Done: true}, nil
}
