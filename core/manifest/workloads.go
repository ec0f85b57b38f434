package manifest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Workload controllers are expanded into the pods they would create, named
// and labelled as the controllers name and label them. The random suffixes
// of real controllers are replaced by deterministic ones derived from the
// owner's name and the replica index, so runs are repeatable.

func (b *builder) addDeployment(d *appsv1.Deployment, fail func(string, error) error) error {
	hash := templateHash(&d.Spec.Template)
	rsName := d.Name + "-" + hash
	extra := map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: hash}
	return b.expand(d.Namespace, d.Spec.Template, replicas(d.Spec.Replicas), fail, func(i int) (string, map[string]string) {
		return rsName + "-" + suffix(rsName, i), extra
	})
}

func (b *builder) addReplicaSet(rs *appsv1.ReplicaSet, fail func(string, error) error) error {
	return b.expand(rs.Namespace, rs.Spec.Template, replicas(rs.Spec.Replicas), fail, func(i int) (string, map[string]string) {
		return rs.Name + "-" + suffix(rs.Name, i), nil
	})
}

func (b *builder) addStatefulSet(s *appsv1.StatefulSet, fail func(string, error) error) error {
	revision := s.Name + "-" + templateHash(&s.Spec.Template)
	return b.expand(s.Namespace, s.Spec.Template, replicas(s.Spec.Replicas), fail, func(i int) (string, map[string]string) {
		name := s.Name + "-" + strconv.Itoa(i)
		return name, map[string]string{
			appsv1.StatefulSetPodNameLabel:        name,
			appsv1.PodIndexLabel:                  strconv.Itoa(i),
			appsv1.ControllerRevisionHashLabelKey: revision,
		}
	})
}

func (b *builder) addJob(j *batchv1.Job, fail func(string, error) error) error {
	// A job runs min(parallelism, completions) pods at once; those are the
	// pods waiting to be scheduled.
	n := int32(1)
	if j.Spec.Parallelism != nil {
		n = *j.Spec.Parallelism
	}
	if j.Spec.Completions != nil && *j.Spec.Completions < n {
		n = *j.Spec.Completions
	}
	if n < 0 {
		return fail("spec.parallelism", fmt.Errorf("must be non-negative, got %d", n))
	}
	uid := string(j.UID)
	if uid == "" {
		uid = "job-" + namespaceOr(j.Namespace) + "-" + j.Name
	}
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	return b.expand(j.Namespace, j.Spec.Template, int(n), fail, func(i int) (string, map[string]string) {
		labels := map[string]string{
			batchv1.JobNameLabel: j.Name, "job-name": j.Name,
			batchv1.ControllerUidLabel: uid, "controller-uid": uid,
		}
		name := j.Name + "-" + suffix(j.Name, i)
		if indexed {
			labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
			name = j.Name + "-" + strconv.Itoa(i) + "-" + suffix(j.Name, i)
		}
		return name, labels
	})
}

// expand adds count pods made from template; name gives each pod's name
// and the labels its controller adds.
func (b *builder) expand(namespace string, template corev1.PodTemplateSpec, count int, fail func(string, error) error, name func(i int) (string, map[string]string)) error {
	for i := 0; i < count; i++ {
		podName, extra := name(i)
		pod := &corev1.Pod{ObjectMeta: *template.ObjectMeta.DeepCopy(), Spec: *template.Spec.DeepCopy()}
		pod.Name, pod.Namespace = podName, namespaceOr(namespace)
		pod.CreationTimestamp = metav1.Time{}
		if len(extra) > 0 && pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		for k, v := range extra {
			pod.Labels[k] = v
		}
		templateFail := func(field string, err error) error {
			return fail(joinField("spec.template", trimSpec(field)), err)
		}
		if err := b.addPod(pod, templateFail); err != nil {
			return err
		}
	}
	return nil
}

// trimSpec maps a pod field path into the template's path: pod "spec.x"
// is "spec.template.spec.x" of the owner.
func trimSpec(field string) string { return field }

func replicas(r *int32) int {
	if r == nil {
		return 1
	}
	return int(*r)
}

func namespaceOr(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

// safeAlphabet is the alphabet Kubernetes uses for generated name parts: no
// vowels (no accidental words) and no easily confused characters.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func encode(h uint32, n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = safeAlphabet[h%uint32(len(safeAlphabet))]
		h /= uint32(len(safeAlphabet))
		if h == 0 {
			h = uint32(i+1) * 2654435761
		}
	}
	return string(out)
}

// templateHash is a stable hash of a pod template, like pod-template-hash.
func templateHash(t *corev1.PodTemplateSpec) string {
	data, _ := json.Marshal(t) // a PodTemplateSpec always marshals
	h := fnv.New32a()
	h.Write(data)
	return encode(h.Sum32(), 10)
}

// suffix is a deterministic stand-in for a controller's random 5-letter suffix.
func suffix(owner string, i int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", owner, i)
	return encode(h.Sum32(), 5)
}
