package components

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// rbacObjects returns the manager's ClusterRole (controller-gen's manager-role, renamed), the ServiceAccount and
// bindings, the leader-election Role, and the ClusterRole that gives Cluster API's controllers access to the
// provider's kinds: Cluster API's own role covers only its groups, so it reaches a provider's group through a
// ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager.
func rbacObjects(n names, roles, crds []object) ([]object, error) {
	out, err := managerRole(n, roles)
	if err != nil {
		return nil, err
	}
	group, resources, err := crdResources(crds)
	if err != nil {
		return nil, err
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: n.serviceAccount, Namespace: n.namespace}}
	typed := []runtime.Object{
		&corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: metav1.ObjectMeta{Name: n.serviceAccount}},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
			ObjectMeta: metav1.ObjectMeta{Name: n.managerBinding},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: n.managerRole},
			Subjects:   subject,
		},
		&rbacv1.Role{
			TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "Role"),
			ObjectMeta: metav1.ObjectMeta{Name: n.leaderElectionRole},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
					Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
				{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
			},
		},
		&rbacv1.RoleBinding{
			TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "RoleBinding"),
			ObjectMeta: metav1.ObjectMeta{Name: n.leaderElectionBinding},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: n.leaderElectionRole},
			Subjects:   subject,
		},
		&rbacv1.ClusterRole{
			TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"),
			ObjectMeta: metav1.ObjectMeta{Name: n.aggregatedRole,
				Labels: map[string]string{"cluster.x-k8s.io/aggregate-to-manager": "true"}},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{group}, Resources: resources,
				Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}}},
		},
	}
	objs, err := toObjects(typed...)
	if err != nil {
		return nil, err
	}
	return append(out, objs...), nil
}

// managerRole returns controller-gen's ClusterRole manager-role, renamed, which must be the only object of roles.
func managerRole(n names, roles []object) ([]object, error) {
	if len(roles) == 0 {
		return nil, fmt.Errorf("cannot find ClusterRole/manager-role in the RBAC role file: run controller-gen rbac first")
	}
	for _, r := range roles {
		if kind(r) != "ClusterRole" || meta(r)["name"] != "manager-role" {
			return nil, fmt.Errorf("cannot use %s from the RBAC role file: want only ClusterRole/manager-role", ref(r))
		}
		meta(r)["name"] = n.managerRole
	}
	return roles, nil
}

// crdResources returns the group of the CRDs, which must all be in one group, and their plural names.
func crdResources(crds []object) (string, []string, error) {
	var group string
	var resources []string
	for _, c := range crds {
		spec, _ := c["spec"].(map[string]any)
		g, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		plural, _ := names["plural"].(string)
		if g == "" || plural == "" || (group != "" && g != group) {
			return "", nil, fmt.Errorf("cannot read the group and plural of %s, or it is not in group %q", ref(c), group)
		}
		group = g
		resources = append(resources, plural)
	}
	return group, resources, nil
}
