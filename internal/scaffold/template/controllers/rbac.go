package controllers

// The RBAC rules of the controller manager (config/rbac/role.yaml, ClusterRole manager-role):
//
// +kubebuilder:rbac:groups=infrastructure.sample.capkit.io,resources=quuxclusters;quuxmachines,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=infrastructure.sample.capkit.io,resources=quuxclusters/status;quuxmachines/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=infrastructure.sample.capkit.io,resources=quuxclusters/finalizers;quuxmachines/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.sample.capkit.io,resources=quuxclustertemplates;quuxmachinetemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +capkit:scaffold:rbac
