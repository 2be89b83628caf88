package conversion_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract/conversion"
)

// BenchmarkRestore restores a small stash, as a conversion of each object of a LIST does.
func BenchmarkRestore(b *testing.B) {
	annots := map[string]string{conversion.StashAnnotation: `{"failureDomain":"zone-a","provisioned":false}`, "a": "b"}
	type stash struct {
		FailureDomain string `json:"failureDomain"`
		Provisioned   *bool  `json:"provisioned"`
	}
	b.ReportAllocs()
	for b.Loop() {
		obj := &metav1.ObjectMeta{Name: "m", Namespace: "ns", Annotations: annots}
		var v stash
		if _, err := conversion.Restore(obj, &v); err != nil {
			b.Fatal(err)
		}
	}
}
