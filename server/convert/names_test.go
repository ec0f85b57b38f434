package convert

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The fast checks must agree with apimachinery's on every input: accepting
// a name it rejects would let an invalid object in.
func TestNameChecksAgreeWithKubernetes(t *testing.T) {
	inputs := []string{
		"", "a", "A", "0", "-", "a-", "-a", "a-b", "a.b", "a..b", ".a", "a.", "a_b", "a/b", "/a", "a/",
		"example.com/gpu", "Example.com/gpu", "example.com/", "example.com/-x", "a/b/c", "kubernetes.io/hostname",
		"topology.kubernetes.io/zone", "x.y_z", "X_Y.z", "node-00001", "web-7d4b9c8f6d-x2x9z", "UPPER", "ünï",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253), strings.Repeat("a.", 126) + "a",
		strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61),
		strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 62),
		"a" + strings.Repeat("-", 61) + "b", "a b", "a\x00b", "a.-b", "a-.b",
	}
	for _, in := range inputs {
		checks := []struct {
			name string
			fast bool
			kube []string
		}{
			{"label", isDNSLabel(in), validation.IsDNS1123Label(in)},
			{"subdomain", isSubdomain(in), validation.IsDNS1123Subdomain(in)},
			{"qualified", isQualifiedName(in), validation.IsQualifiedName(in)},
			{"label value", in == "" || isNamePart(in), validation.IsValidLabelValue(in)},
		}
		for _, c := range checks {
			if c.fast != (len(c.kube) == 0) {
				t.Errorf("%s %q: fast check says valid=%v, apimachinery says %v", c.name, in, c.fast, c.kube)
			}
		}
	}
}
