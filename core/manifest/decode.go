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
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/volume"
)

// Cluster is what a set of manifests describes.
type Cluster struct {
	Nodes []*model.Node
	Pods  []*model.Pod // in input order; NodeName set means running there
	// FinishedPods are the bound pods whose phase is Succeeded or Failed,
	// in input order: they hold nothing and are not in Pods, but
	// descheduling looks at them (PodLifeTime, evictFailedBarePods).
	FinishedPods    []*model.Pod
	PriorityClasses []*model.PriorityClass
	PDBs            []*model.PodDisruptionBudget
	Namespaces      []*model.Namespace
	// Devices are the dynamic resource allocation objects (resource.k8s.io/v1
	// DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate,
	// DeviceTaintRule),
	// validated and defaulted, with the claims made from templates for the
	// pods that use them.
	Devices *dra.Objects
	// Volumes are the storage objects (v1 PersistentVolume,
	// PersistentVolumeClaim, storage.k8s.io/v1 StorageClass, CSINode,
	// CSIDriver, CSIStorageCapacity), validated. The claims of pods'
	// ephemeral volumes are not among them: the scheduler makes them.
	Volumes   *volume.Objects
	PodGroups []*model.PodGroup
	// CompositePodGroups are kube 1.37's alpha CompositePodGroups
	// (scheduling.k8s.io/v1alpha3), in input order.
	CompositePodGroups []*model.CompositePodGroup
	// SchedulerConfig is the raw KubeSchedulerConfiguration document, if
	// one was given (at most one may be), and SchedulerConfigAt where.
	SchedulerConfig   []byte
	SchedulerConfigAt Location
	// Queueing is the Kueue objects (kueue.x-k8s.io v1beta1 and v1beta2,
	// and Kueue's Configuration), read as v1beta2 means them; nil when
	// none was given.
	Queueing *quota.Objects
	// Ignored lists the documents that do not affect scheduling (ConfigMaps,
	// Secrets, Services selecting no pod, ...), so callers can say what was
	// skipped.
	Ignored []Ignored
	// Warnings are documents read as written that should be written
	// otherwise (1.36's scheduling.k8s.io/v1alpha2 PodGroup spelling), for
	// callers to pass on.
	Warnings []Warning
	// Origins tells where each object was written, by pointer (*model.Node,
	// *model.Pod, *model.Namespace, *model.PriorityClass,
	// *model.PodDisruptionBudget, and the Kueue objects written as such:
	// *quota.ResourceFlavor, ..., *quota.Workload). A pod made from a
	// workload comes from the workload's document. Objects only implied
	// (the namespace of a pod when no Namespace document names it, the
	// Kueue workloads of pods, Jobs and groups) have none.
	Origins map[any]Location
}

// Origin returns where obj (a pointer held by the Cluster) was written.
func (c *Cluster) Origin(obj any) (Location, bool) {
	l, ok := c.Origins[obj]
	return l, ok
}

// Location is a document of a manifest file.
type Location struct {
	File     string
	Document int // 1-based index of the YAML document
}

func (l Location) String() string { return fmt.Sprintf("%s: document %d", l.File, l.Document) }

// Ignored is a document (or List item) that was skipped.
type Ignored struct {
	Location
	Object string // "ConfigMap default/settings"
	Reason string // "does not affect scheduling"
}

func (i Ignored) String() string { return fmt.Sprintf("%s (%s): %s", i.Location, i.Object, i.Reason) }

// Warning is a document (or List item) that was read but is outdated.
type Warning struct {
	Location
	Object  string // "PodGroup ml/train"
	Message string
}

func (w Warning) String() string { return fmt.Sprintf("%s (%s): %s", w.Location, w.Object, w.Message) }

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

// kindsRead names what Berth reads, for messages.
const kindsRead = "Berth reads v1 Node, Pod, Namespace, List, Service, ReplicationController, " +
	"scheduling.k8s.io/v1 PriorityClass, policy/v1 PodDisruptionBudget, apps/v1 Deployment, " +
	"ReplicaSet, StatefulSet, DaemonSet, batch/v1 Job, resource.k8s.io/v1 DeviceClass, " +
	"ResourceSlice, ResourceClaim, ResourceClaimTemplate, DeviceTaintRule (also v1beta2), v1 PersistentVolume, PersistentVolumeClaim, storage.k8s.io/v1 StorageClass, " +
	"CSINode, CSIDriver, CSIStorageCapacity, scheduling.k8s.io/v1beta1 (and 1.36's v1alpha2) PodGroup and Workload, " +
	"scheduling.x-k8s.io/v1alpha1 PodGroup, KubeSchedulerConfiguration and kueue.x-k8s.io v1beta1/v1beta2 ResourceFlavor, " +
	"ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass, Workload"

// ignoredKind reports kinds that do not influence placement; documents of
// these kinds are skipped with a note so whole application manifests can be
// read.
func ignoredKind(kind string) bool {
	switch kind {
	case "ConfigMap", "Secret", "ServiceAccount", "Ingress", "IngressClass", "NetworkPolicy",
		"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "HorizontalPodAutoscaler",
		"CustomResourceDefinition", "VolumeAttachment", "VolumeAttributesClass",
		"LimitRange", "ResourceQuota", "Endpoints", "EndpointSlice", "CronJob":
		return true
	}
	return false
}

// notAffecting is the reason of documents of ignored kinds.
const notAffecting = "does not affect scheduling"

// decoder holds the scheme of the kinds Berth reads. It is built per call:
// there is no package-level state.
type decoder struct {
	codecs serializer.CodecFactory
}

func newDecoder() (*decoder, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, schedulingv1.AddToScheme, policyv1.AddToScheme,
		appsv1.AddToScheme, batchv1.AddToScheme, resourcev1.AddToScheme, resourcev1beta2.AddToScheme, schedulingv1alpha2.AddToScheme,
		storagev1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building the manifest scheme: %w", err)
		}
	}
	return &decoder{codecs: serializer.NewCodecFactory(scheme, serializer.EnableStrict)}, nil
}

// Source is one manifest file's content and the name errors give it.
type Source struct {
	Name string
	Data []byte
}

// LoadFiles reads and merges manifests from files ("-" is standard input).
func LoadFiles(paths ...string) (*Cluster, error) {
	srcs := make([]Source, 0, len(paths))
	for _, p := range paths {
		data, err := readFile(p)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, Source{Name: p, Data: data})
	}
	return DecodeSources(srcs...)
}

// Decode reads manifests from data; source names them in errors.
func Decode(source string, data []byte) (*Cluster, error) {
	return DecodeSources(Source{Name: source, Data: data})
}

// DecodeSources reads several manifest files as one input: objects may
// refer to objects of other files (a pod to its ReplicaSet, a Service to
// its pods), creation times follow the input order across files, and
// duplicates are found across files.
func DecodeSources(srcs ...Source) (*Cluster, error) {
	b, err := newBuilder()
	if err != nil {
		return nil, err
	}
	for _, s := range srcs {
		if err := b.add(s.Name, s.Data); err != nil {
			return nil, err
		}
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

// entry is a decoded document, or an item of a List document, waiting to
// be turned into model objects once every document is read.
type entry struct {
	at     Location
	obj    runtime.Object
	object string // "Pod default/web"
	prefix string // "items[2]" for an item of a List
	// groupPolicy is a v1beta1 PodGroup's spec.preemptionPolicy, which the
	// v1alpha2 object decoded does not carry.
	groupPolicy model.PreemptionPolicy
	// groupParent is a v1beta1 PodGroup's spec.parentCompositePodGroupName,
	// which v1alpha2 does not have either.
	groupParent string
}

// fail locates err at field of the entry's object.
func (e *entry) fail(field string, err error) error {
	return &Error{File: e.at.File, Document: e.at.Document, Object: e.object, Field: joinField(e.prefix, field), Err: err}
}

// add reads every document of one file.
func (b *builder) add(source string, data []byte) error {
	if _, ok := b.files[source]; !ok {
		b.files[source] = len(b.files)
	}
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
		if err := b.addDocument(Location{File: source, Document: doc}, raw); err != nil {
			return err
		}
	}
}

func (b *builder) addDocument(at Location, raw []byte) error {
	var tm typeMeta
	if err := yaml.Unmarshal(raw, &tm); err != nil {
		return &Error{File: at.File, Document: at.Document, Err: fmt.Errorf("not a Kubernetes object: %w", err)}
	}
	e := &entry{at: at}
	if tm.Kind != "" {
		e.object = objectName(tm.Kind, tm.Metadata.Namespace, tm.Metadata.Name)
	}
	switch {
	case tm.Kind == "":
		return e.fail("kind", errors.New("missing"))
	case tm.APIVersion == "":
		return e.fail("apiVersion", fmt.Errorf("missing (a %s needs one, for example %s)", tm.Kind, exampleAPIVersion(tm.Kind)))
	case tm.Kind == "KubeSchedulerConfiguration":
		if !strings.HasPrefix(tm.APIVersion, "kubescheduler.config.k8s.io/") {
			return e.fail("apiVersion", fmt.Errorf("KubeSchedulerConfiguration must be kubescheduler.config.k8s.io/v1, got %q", tm.APIVersion))
		}
		if b.cluster.SchedulerConfig != nil {
			return e.fail("", fmt.Errorf("a second KubeSchedulerConfiguration (the first is %s): give one, or pass --config", b.cluster.SchedulerConfigAt))
		}
		b.cluster.SchedulerConfig, b.cluster.SchedulerConfigAt = raw, at
		return nil
	case isKueue(tm.APIVersion):
		return b.addKueue(e, tm, raw)
	case ignoredKind(tm.Kind):
		b.ignore(e, notAffecting)
		return nil
	}
	json, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return e.fail("", err)
	}
	obj, err := b.decodeObject(e, tm, json)
	if err != nil {
		return err
	}
	return b.addEntry(e, obj)
}

// decodeObject decodes one object, a document or a List item, given as
// JSON: a coscheduling PodGroup, kube 1.37's scheduling.k8s.io PodGroups
// and Workloads (rewritten in the spelling the scheme knows), or any kind
// of the scheme.
func (b *builder) decodeObject(e *entry, tm typeMeta, json []byte) (runtime.Object, error) {
	if tm.APIVersion == coschedulingAPIVersion && tm.Kind == "PodGroup" {
		g, err := coschedulingGroup(json)
		if err != nil {
			return nil, e.fail("", err)
		}
		return g, nil
	}
	if tm.APIVersion == schedulingV1alpha3 && tm.Kind == "CompositePodGroup" {
		c, field, err := compositeGroup(json)
		if err != nil {
			return nil, e.fail(field, err)
		}
		return c, nil
	}
	if (tm.APIVersion == schedulingV1beta1 || tm.APIVersion == schedulingV1alpha3) &&
		(tm.Kind == "PodGroup" || tm.Kind == "Workload" || tm.Kind == "CompositePodGroup") {
		var field string
		var err error
		if json, e.groupPolicy, e.groupParent, field, err = fromV1beta1(tm.Kind, json); err != nil {
			return nil, e.fail(field, err)
		}
	}
	if tm.APIVersion == resourcev1.SchemeGroupVersion.String() && tm.Kind == dra.KindDeviceTaintRule {
		// kube 1.37's v1 DeviceTaintRule has v1beta2's shape, which is the
		// one Berth's k8s.io/api knows.
		json = bytes.Replace(json, []byte(`"`+tm.APIVersion+`"`), []byte(`"`+resourcev1beta2.SchemeGroupVersion.String()+`"`), 1)
	}
	obj, _, err := b.dec.codecs.UniversalDeserializer().Decode(json, nil, nil)
	if err != nil {
		if runtime.IsNotRegisteredError(err) {
			return nil, e.fail("kind", fmt.Errorf("%w %s %s: %s", ErrUnknownKind, tm.APIVersion, tm.Kind, kindsRead))
		}
		return nil, decodeError(e, json, err)
	}
	b.warnOutdated(e, tm)
	return obj, nil
}

// addEntry queues a decoded object; a List's items are queued one by one.
func (b *builder) addEntry(e *entry, obj runtime.Object) error {
	list, ok := obj.(*corev1.List)
	if !ok {
		if err := checkNames(e, obj); err != nil {
			return err
		}
		e.obj = obj
		b.entries = append(b.entries, e)
		return nil
	}
	for i, item := range list.Items {
		ie := &entry{at: e.at, prefix: joinField(e.prefix, fmt.Sprintf("items[%d]", i)), object: e.object}
		var tm typeMeta
		if err := yaml.Unmarshal(item.Raw, &tm); err == nil && tm.Kind != "" {
			ie.object = objectName(tm.Kind, tm.Metadata.Namespace, tm.Metadata.Name)
		}
		switch {
		case tm.Kind == "":
			return ie.fail("kind", errors.New("missing"))
		case tm.APIVersion == "":
			return ie.fail("apiVersion", fmt.Errorf("missing (a %s needs one, for example %s)", tm.Kind, exampleAPIVersion(tm.Kind)))
		case ignoredKind(tm.Kind):
			b.ignore(ie, notAffecting)
			continue
		case tm.Kind == "KubeSchedulerConfiguration":
			return ie.fail("kind", errors.New("a KubeSchedulerConfiguration must be a document of its own, not a List item"))
		}
		inner, err := b.decodeObject(ie, tm, item.Raw)
		if err != nil {
			return err
		}
		if err := b.addEntry(ie, inner); err != nil {
			return err
		}
	}
	return nil
}

// checkNames refuses the names the API server refuses (and Berth's server
// after it): a namespace is a DNS label, and so is a Namespace's name; any
// other name is a DNS subdomain.
func checkNames(e *entry, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil // every kind read has metadata
	}
	if ns := m.GetNamespace(); ns != "" {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return e.fail("metadata.namespace", fmt.Errorf("invalid value %q: %s", ns, strings.Join(errs, "; ")))
		}
	}
	valid := validation.IsDNS1123Subdomain
	if _, ok := obj.(*corev1.Namespace); ok {
		valid = validation.IsDNS1123Label
	}
	if name := m.GetName(); name != "" {
		if errs := valid(name); len(errs) > 0 {
			return e.fail("metadata.name", fmt.Errorf("invalid value %q: %s", name, strings.Join(errs, "; ")))
		}
	}
	return nil
}

// ignore records a skipped document.
func (b *builder) ignore(e *entry, reason string) {
	object := e.object
	if e.prefix != "" {
		object = e.prefix + " " + object
	}
	b.cluster.Ignored = append(b.cluster.Ignored, Ignored{Location: e.at, Object: object, Reason: reason})
}

// warnOutdated records a warning for a document written in an API version
// Kubernetes no longer serves but Berth still reads.
func (b *builder) warnOutdated(e *entry, tm typeMeta) {
	msg := outdatedAPI(tm.APIVersion, tm.Kind)
	if msg == "" {
		return
	}
	object := e.object
	if e.prefix != "" {
		object = e.prefix + " " + object
	}
	b.cluster.Warnings = append(b.cluster.Warnings, Warning{Location: e.at, Object: object, Message: msg})
}

// exampleAPIVersion suggests the apiVersion of a kind in messages.
func exampleAPIVersion(kind string) string {
	switch kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		return "apps/v1"
	case "Job":
		return "batch/v1"
	case "PriorityClass":
		return "scheduling.k8s.io/v1"
	case "PodDisruptionBudget":
		return "policy/v1"
	case "KubeSchedulerConfiguration":
		return "kubescheduler.config.k8s.io/v1"
	}
	return "v1"
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
		case "Node", "Namespace", "PriorityClass", "List", "KubeSchedulerConfiguration",
			"ResourceFlavor", "ClusterQueue", "Cohort", "WorkloadPriorityClass", "Configuration":
		default:
			namespace = "default"
		}
	}
	switch {
	case namespace != "":
		return kind + " " + namespace + "/" + name
	case name != "":
		return kind + " " + name
	}
	return kind
}

func joinField(prefix, field string) string {
	switch {
	case field == "":
		return prefix
	case prefix == "":
		return field
	case field[0] == '[':
		return prefix + field
	}
	return prefix + "." + field
}

// baseTime is when pods without a creationTimestamp are taken to be created:
// the i-th pod in input order gets baseTime + (i+1)s, as the oracle does, so
// pending pods keep input order in the queue.
func baseTime() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }
