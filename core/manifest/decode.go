package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/model"
)

// Cluster is what a set of manifests describes.
type Cluster struct {
	Nodes           []*model.Node
	Pods            []*model.Pod // in file order; NodeName set means running there
	PriorityClasses []*model.PriorityClass
	PDBs            []*model.PodDisruptionBudget
	Namespaces      []*model.Namespace
	// SchedulerConfig is the raw KubeSchedulerConfiguration document, if one
	// was given (the last one wins).
	SchedulerConfig []byte
	// Ignored lists documents of kinds that do not affect scheduling
	// (Services, ConfigMaps, ...), so callers can say what was skipped.
	Ignored []string
}

// Error locates a problem in a manifest.
type Error struct {
	File     string
	Document int    // 1-based index of the YAML document
	Object   string // "Pod default/web", when known
	Field    string // "spec.containers[0].resources.requests[cpu]", when known
	Err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Document > 0 {
		fmt.Fprintf(&b, ": document %d", e.Document)
	}
	if e.Object != "" {
		fmt.Fprintf(&b, " (%s)", e.Object)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrUnknownKind is wrapped by errors about documents of kinds Berth does not
// read and that could change scheduling if ignored.
var ErrUnknownKind = errors.New("unknown kind")

// ignoredKind reports kinds that do not influence placement; documents of
// these kinds are skipped with a note so whole application manifests can be
// read.
func ignoredKind(kind string) bool {
	switch kind {
	case "Service", "ConfigMap", "Secret", "ServiceAccount", "Ingress", "NetworkPolicy",
		"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "HorizontalPodAutoscaler",
		"PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CustomResourceDefinition",
		"LimitRange", "ResourceQuota", "Endpoints", "EndpointSlice", "CronJob", "DaemonSet":
		return true
	}
	return false
}

// decoder holds the scheme of the kinds Berth reads. It is built per call:
// there is no package-level state.
type decoder struct {
	codecs serializer.CodecFactory
}

func newDecoder() (*decoder, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, schedulingv1.AddToScheme, policyv1.AddToScheme,
		appsv1.AddToScheme, batchv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building the manifest scheme: %w", err)
		}
	}
	return &decoder{codecs: serializer.NewCodecFactory(scheme, serializer.EnableStrict)}, nil
}

// LoadFiles reads and merges manifests from files ("-" is standard input).
func LoadFiles(paths ...string) (*Cluster, error) {
	b := newBuilder()
	for _, p := range paths {
		data, err := readFile(p)
		if err != nil {
			return nil, err
		}
		if err := b.add(p, data); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

// Decode reads manifests from data; source names them in errors.
func Decode(source string, data []byte) (*Cluster, error) {
	b := newBuilder()
	if err := b.add(source, data); err != nil {
		return nil, err
	}
	return b.finish()
}

func readFile(path string) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading manifest: %w", err)
	}
	return data, nil
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// add decodes every document of one file.
func (b *builder) add(source string, data []byte) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReaderSize(bytes.NewReader(data), 1<<20))
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &Error{File: source, Document: doc, Err: fmt.Errorf("reading YAML: %w", err)}
		}
		if isBlank(raw) {
			continue
		}
		if err := b.addDocument(source, doc, raw); err != nil {
			return err
		}
	}
}

func (b *builder) addDocument(source string, doc int, raw []byte) error {
	var tm typeMeta
	if err := yaml.Unmarshal(raw, &tm); err != nil {
		return &Error{File: source, Document: doc, Err: fmt.Errorf("not a Kubernetes object: %w", err)}
	}
	loc := &Error{File: source, Document: doc}
	if tm.Kind != "" {
		loc.Object = objectName(tm.Kind, tm.Metadata.Namespace, tm.Metadata.Name)
	}
	fail := func(field string, err error) error {
		e := *loc
		e.Field, e.Err = field, err
		return &e
	}
	switch {
	case tm.Kind == "":
		return fail("kind", errors.New("missing"))
	case tm.Kind == "KubeSchedulerConfiguration":
		if !strings.HasPrefix(tm.APIVersion, "kubescheduler.config.k8s.io/") {
			return fail("apiVersion", fmt.Errorf("KubeSchedulerConfiguration must be kubescheduler.config.k8s.io/v1, got %q", tm.APIVersion))
		}
		b.cluster.SchedulerConfig = raw
		return nil
	case ignoredKind(tm.Kind):
		b.cluster.Ignored = append(b.cluster.Ignored, fmt.Sprintf("%s: document %d: %s (does not affect scheduling)", source, doc, loc.Object))
		return nil
	}
	json, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return fail("", err)
	}
	obj, _, err := b.dec.codecs.UniversalDeserializer().Decode(json, nil, nil)
	if err != nil {
		if runtime.IsNotRegisteredError(err) {
			return fail("kind", fmt.Errorf("%w %s %s: Berth reads v1 Node, Pod, Namespace, List, scheduling.k8s.io/v1 PriorityClass, policy/v1 PodDisruptionBudget, apps/v1 Deployment, ReplicaSet, StatefulSet, batch/v1 Job and KubeSchedulerConfiguration", ErrUnknownKind, tm.APIVersion, tm.Kind))
		}
		return fail("", err)
	}
	return b.addObject(obj, fail)
}

func (b *builder) addObject(obj runtime.Object, fail func(string, error) error) error {
	switch o := obj.(type) {
	case *corev1.List:
		for i, item := range o.Items {
			inner, _, err := b.dec.codecs.UniversalDeserializer().Decode(item.Raw, nil, nil)
			if err != nil {
				return fail(fmt.Sprintf("items[%d]", i), err)
			}
			itemFail := func(field string, err error) error {
				return fail(joinField(fmt.Sprintf("items[%d]", i), field), err)
			}
			if err := b.addObject(inner, itemFail); err != nil {
				return err
			}
		}
		return nil
	case *corev1.Node:
		return b.addNode(o, fail)
	case *corev1.Pod:
		return b.addPod(o, fail)
	case *corev1.Namespace:
		b.addNamespace(o)
		return nil
	case *schedulingv1.PriorityClass:
		return b.addPriorityClass(o, fail)
	case *policyv1.PodDisruptionBudget:
		return b.addPDB(o, fail)
	case *appsv1.Deployment:
		return b.addDeployment(o, fail)
	case *appsv1.ReplicaSet:
		return b.addReplicaSet(o, fail)
	case *appsv1.StatefulSet:
		return b.addStatefulSet(o, fail)
	case *batchv1.Job:
		return b.addJob(o, fail)
	}
	return fail("kind", fmt.Errorf("%w %T", ErrUnknownKind, obj))
}

func isBlank(doc []byte) bool {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || string(t) == "---" {
			continue
		}
		return false
	}
	return true
}

func objectName(kind, namespace, name string) string {
	if namespace == "" {
		switch kind {
		case "Node", "Namespace", "PriorityClass", "List", "KubeSchedulerConfiguration":
		default:
			namespace = "default"
		}
	}
	if namespace != "" {
		return kind + " " + namespace + "/" + name
	}
	return kind + " " + name
}

func joinField(prefix, field string) string {
	if field == "" {
		return prefix
	}
	return prefix + "." + field
}

// baseTime is when pods without a creationTimestamp are taken to be created:
// the i-th pod in input order gets baseTime + (i+1)s, as the oracle does, so
// pending pods keep input order in the queue.
func baseTime() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }
