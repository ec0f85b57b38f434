package manifest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// Kueue's API groups.
const (
	kueueGroup       = "kueue.x-k8s.io/"
	kueueConfigGroup = "config.kueue.x-k8s.io/"
	kueueV1beta1     = kueueGroup + "v1beta1"
	kueueV1beta2     = kueueGroup + "v1beta2"
)

func isKueue(apiVersion string) bool {
	return strings.HasPrefix(apiVersion, kueueGroup) || strings.HasPrefix(apiVersion, kueueConfigGroup)
}

// The Kueue documents as written, v1beta1 and v1beta2 in one shape; the
// fields of one version only are checked against the document's version.
type kueueMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	CreationTimestamp *metav1.Time      `json:"creationTimestamp,omitempty"`
}

type kueueResourceQuota struct {
	Name           string             `json:"name"`
	NominalQuota   resource.Quantity  `json:"nominalQuota"`
	BorrowingLimit *resource.Quantity `json:"borrowingLimit,omitempty"`
	LendingLimit   *resource.Quantity `json:"lendingLimit,omitempty"`
}

type kueueFlavorQuotas struct {
	Name      string               `json:"name"`
	Resources []kueueResourceQuota `json:"resources"`
}

type kueueResourceGroup struct {
	CoveredResources []string            `json:"coveredResources"`
	Flavors          []kueueFlavorQuotas `json:"flavors"`
}

type kueueFairSharing struct {
	Weight *resource.Quantity `json:"weight,omitempty"`
}

type kueueClusterQueue struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   kueueMeta `json:"metadata"`
	Spec       struct {
		Cohort            string                `json:"cohort,omitempty"`     // v1beta1
		CohortName        string                `json:"cohortName,omitempty"` // v1beta2
		ResourceGroups    []kueueResourceGroup  `json:"resourceGroups,omitempty"`
		QueueingStrategy  string                `json:"queueingStrategy,omitempty"`
		NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
		FlavorFungibility *struct {
			WhenCanBorrow  string `json:"whenCanBorrow,omitempty"`
			WhenCanPreempt string `json:"whenCanPreempt,omitempty"`
			Preference     string `json:"preference,omitempty"`
		} `json:"flavorFungibility,omitempty"`
		Preemption *struct {
			WithinClusterQueue  string `json:"withinClusterQueue,omitempty"`
			ReclaimWithinCohort string `json:"reclaimWithinCohort,omitempty"`
			BorrowWithinCohort  *struct {
				Policy               string `json:"policy,omitempty"`
				MaxPriorityThreshold *int32 `json:"maxPriorityThreshold,omitempty"`
			} `json:"borrowWithinCohort,omitempty"`
		} `json:"preemption,omitempty"`
		StopPolicy  string            `json:"stopPolicy,omitempty"`
		FairSharing *kueueFairSharing `json:"fairSharing,omitempty"`
	} `json:"spec"`
	Status map[string]any `json:"status,omitempty"`
}

type kueueCohort struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   kueueMeta `json:"metadata"`
	Spec       struct {
		ParentName     string               `json:"parentName,omitempty"`
		ResourceGroups []kueueResourceGroup `json:"resourceGroups,omitempty"`
		FairSharing    *kueueFairSharing    `json:"fairSharing,omitempty"`
	} `json:"spec"`
	Status map[string]any `json:"status,omitempty"`
}

type kueueResourceFlavor struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   kueueMeta `json:"metadata"`
	Spec       struct {
		NodeLabels  map[string]string   `json:"nodeLabels,omitempty"`
		NodeTaints  []corev1.Taint      `json:"nodeTaints,omitempty"`
		Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	} `json:"spec"`
}

type kueueLocalQueue struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   kueueMeta `json:"metadata"`
	Spec       struct {
		ClusterQueue string `json:"clusterQueue"`
		StopPolicy   string `json:"stopPolicy,omitempty"`
	} `json:"spec"`
	Status map[string]any `json:"status,omitempty"`
}

type kueueWPC struct {
	APIVersion  string    `json:"apiVersion"`
	Kind        string    `json:"kind"`
	Metadata    kueueMeta `json:"metadata"`
	Value       int32     `json:"value"`
	Description string    `json:"description,omitempty"`
}

type kueuePodSet struct {
	Name     string                 `json:"name,omitempty"`
	Count    *int32                 `json:"count,omitempty"`
	MinCount *int32                 `json:"minCount,omitempty"`
	Template corev1.PodTemplateSpec `json:"template"`
}

type kueuePodSetAssignment struct {
	Name          string              `json:"name,omitempty"`
	Flavors       map[string]string   `json:"flavors,omitempty"`
	ResourceUsage corev1.ResourceList `json:"resourceUsage,omitempty"`
	Count         *int32              `json:"count,omitempty"`
}

type kueueWorkload struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   kueueMeta `json:"metadata"`
	Spec       struct {
		QueueName           string        `json:"queueName,omitempty"`
		PodSets             []kueuePodSet `json:"podSets"`
		Priority            *int32        `json:"priority,omitempty"`
		PriorityClassName   string        `json:"priorityClassName,omitempty"`   // v1beta1
		PriorityClassSource string        `json:"priorityClassSource,omitempty"` // v1beta1
		PriorityClassRef    *struct {
			Group string `json:"group"`
			Kind  string `json:"kind"`
			Name  string `json:"name"`
		} `json:"priorityClassRef,omitempty"` // v1beta2
		Active *bool `json:"active,omitempty"`
	} `json:"spec"`
	Status struct {
		Admission *struct {
			ClusterQueue      string                  `json:"clusterQueue"`
			PodSetAssignments []kueuePodSetAssignment `json:"podSetAssignments"`
		} `json:"admission,omitempty"`
		Conditions []metav1.Condition `json:"conditions,omitempty"`
	} `json:"status,omitempty"`
}

type kueueConfiguration struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	FairSharing *struct {
		Enable               bool     `json:"enable,omitempty"`
		PreemptionStrategies []string `json:"preemptionStrategies,omitempty"`
	} `json:"fairSharing,omitempty"`
	AdmissionFairSharing map[string]any `json:"admissionFairSharing,omitempty"`
	// Settings that change admission and Berth does not apply yet.
	Resources        map[string]any  `json:"resources,omitempty"`
	FeatureGates     map[string]bool `json:"featureGates,omitempty"`
	WaitForPodsReady map[string]any  `json:"waitForPodsReady,omitempty"`
}

// kueueInput collects the Kueue documents until every document is read.
type kueueInput struct {
	objs      quota.Objects
	workloads []*kueueWorkloadEntry
	configAt  *Location
	jobs      []*kueueJob
	sets      []*kueueStatefulSet
	// jobPods are the pods a queued Job or StatefulSet made: theirs is
	// the owner's workload, not one of their own.
	jobPods map[string]bool
	groups  []queuedGroup
}

// kueueStatefulSet is a StatefulSet labelled with a queue name: one
// workload of its replicas (Kueue's StatefulSet integration).
type kueueStatefulSet struct {
	e    *entry
	set  *appsv1.StatefulSet
	pods []*model.Pod
}

// queuedGroup is a PodGroup labelled with a queue name: one workload of
// its members.
type queuedGroup struct {
	group *model.PodGroup
	queue string
}

// kueueJob is a batch/v1 Job labelled with a queue name: one workload of
// its pods (Kueue's Job integration).
type kueueJob struct {
	e    *entry
	job  *batchv1.Job
	pods []*model.Pod
}

type kueueWorkloadEntry struct {
	e  *entry
	wl *kueueWorkload
}

// addKueue reads one Kueue document.
func (b *builder) addKueue(e *entry, tm typeMeta, raw []byte) error {
	k := &b.kueue
	v := tm.APIVersion
	if strings.HasPrefix(v, kueueConfigGroup) {
		if tm.Kind != "Configuration" {
			return e.fail("kind", fmt.Errorf("%w %s %s: Berth reads %sv1beta1 and v1beta2 Configuration", ErrUnknownKind, v, tm.Kind, kueueConfigGroup))
		}
		if v != kueueConfigGroup+"v1beta1" && v != kueueConfigGroup+"v1beta2" {
			return e.fail("apiVersion", fmt.Errorf("must be %sv1beta1 or v1beta2 for Kueue's Configuration, got %q", kueueConfigGroup, v))
		}
		if k.configAt != nil {
			return e.fail("", fmt.Errorf("a second Kueue Configuration (the first is %s)", *k.configAt))
		}
		var c kueueConfiguration
		if err := yaml.Unmarshal(raw, &c); err != nil {
			return e.fail("", err)
		}
		at := e.at
		k.configAt = &at
		if c.FairSharing != nil {
			k.objs.Config.FairSharing = c.FairSharing.Enable
			k.objs.Config.PreemptionStrategies = c.FairSharing.PreemptionStrategies
		}
		if len(c.AdmissionFairSharing) > 0 {
			return e.fail("admissionFairSharing", errors.New("admission fair sharing is not supported by Berth's admission yet"))
		}
		for _, f := range []struct {
			field string
			set   bool
		}{{"resources", len(c.Resources) > 0}, {"featureGates", len(c.FeatureGates) > 0}, {"waitForPodsReady", len(c.WaitForPodsReady) > 0}} {
			if f.set {
				return e.fail(f.field, errors.New("not supported by Berth's admission yet (Kueue 0.17's defaults apply)"))
			}
		}
		return nil
	}
	if v != kueueV1beta1 && v != kueueV1beta2 {
		return e.fail("apiVersion", fmt.Errorf("must be %s or %s (the versions Berth reads), got %q", kueueV1beta1, kueueV1beta2, v))
	}
	strict := func(out any) error {
		if err := yaml.UnmarshalStrict(raw, out); err != nil {
			return e.fail("", fmt.Errorf("decoding %s: %w", tm.Kind, err))
		}
		return nil
	}
	switch tm.Kind {
	case "ResourceFlavor":
		var o kueueResourceFlavor
		if err := strict(&o); err != nil {
			return err
		}
		return b.addFlavor(e, &o)
	case "ClusterQueue":
		var o kueueClusterQueue
		if err := strict(&o); err != nil {
			return err
		}
		return b.addClusterQueue(e, v, &o)
	case "Cohort":
		var o kueueCohort
		if err := strict(&o); err != nil {
			return err
		}
		return b.addCohort(e, &o)
	case "LocalQueue":
		var o kueueLocalQueue
		if err := strict(&o); err != nil {
			return err
		}
		ns := o.Metadata.Namespace
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
		if o.Spec.ClusterQueue == "" {
			return e.fail("spec.clusterQueue", errors.New("required"))
		}
		if sp := o.Spec.StopPolicy; sp != "" && sp != quota.StopPolicyNone {
			return e.fail("spec.stopPolicy", fmt.Errorf("%q is not supported by Berth's admission yet (only None)", sp))
		}
		lq := &quota.LocalQueue{Namespace: ns, Name: o.Metadata.Name, ClusterQueue: o.Spec.ClusterQueue, StopPolicy: o.Spec.StopPolicy}
		k.objs.LocalQueues = append(k.objs.LocalQueues, lq)
		b.cluster.Origins[lq] = e.at
		return nil
	case "WorkloadPriorityClass":
		var o kueueWPC
		if err := strict(&o); err != nil {
			return err
		}
		pc := &quota.WorkloadPriorityClass{Name: o.Metadata.Name, Value: o.Value, Description: o.Description}
		k.objs.PriorityClasses = append(k.objs.PriorityClasses, pc)
		b.cluster.Origins[pc] = e.at
		return nil
	case "Workload":
		var o kueueWorkload
		if err := strict(&o); err != nil {
			return err
		}
		if o.Metadata.Namespace == "" {
			o.Metadata.Namespace = metav1.NamespaceDefault
		}
		e.object = objectName("Workload", o.Metadata.Namespace, o.Metadata.Name)
		k.workloads = append(k.workloads, &kueueWorkloadEntry{e: e, wl: &o})
		return nil
	}
	return e.fail("kind", fmt.Errorf("%w %s %s: Berth reads Kueue's ResourceFlavor, ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass and Workload", ErrUnknownKind, v, tm.Kind))
}

func (b *builder) addFlavor(e *entry, o *kueueResourceFlavor) error {
	f := &quota.ResourceFlavor{Name: o.Metadata.Name, NodeLabels: copyMap(o.Spec.NodeLabels)}
	for i, t := range o.Spec.NodeTaints {
		if err := validEffect(t.Effect, false); err != nil {
			return e.fail(fmt.Sprintf("spec.nodeTaints[%d].effect", i), err)
		}
		f.NodeTaints = append(f.NodeTaints, model.Taint{Key: t.Key, Value: t.Value, Effect: model.TaintEffect(t.Effect)})
	}
	tols, ferr := tolerations(o.Spec.Tolerations)
	if ferr != nil {
		return e.fail("spec.tolerations"+ferr.field, ferr.err)
	}
	f.Tolerations = tols
	if errs := quota.ValidateResourceFlavor(f); len(errs) > 0 {
		return e.fail("", errs.ToAggregate())
	}
	b.kueue.objs.Flavors = append(b.kueue.objs.Flavors, f)
	b.cluster.Origins[f] = e.at
	return nil
}

func resourceGroups(in []kueueResourceGroup) []quota.ResourceGroup {
	out := make([]quota.ResourceGroup, 0, len(in))
	for _, rg := range in {
		g := quota.ResourceGroup{CoveredResources: rg.CoveredResources}
		for _, f := range rg.Flavors {
			fq := quota.FlavorQuotas{Name: f.Name}
			for _, r := range f.Resources {
				re := quota.ResourceEntry{Name: r.Name}
				re.Nominal = quantityValue(r.Name, r.NominalQuota)
				if r.BorrowingLimit != nil {
					v := quantityValue(r.Name, *r.BorrowingLimit)
					re.BorrowingLimit = &v
				}
				if r.LendingLimit != nil {
					v := quantityValue(r.Name, *r.LendingLimit)
					re.LendingLimit = &v
				}
				fq.Resources = append(fq.Resources, re)
			}
			g.Flavors = append(g.Flavors, fq)
		}
		out = append(out, g)
	}
	return out
}

func fairWeight(fs *kueueFairSharing) float64 {
	if fs == nil || fs.Weight == nil {
		return 1
	}
	return fs.Weight.AsApproximateFloat64()
}

// v1beta1Fungibility converts v1beta1's values (Borrow, Preempt) to v1beta2's.
func v1beta1Fungibility(s string) string {
	switch s {
	case "Borrow", "Preempt":
		return quota.FungibilityMayStopSearch
	}
	return s
}

func (b *builder) addClusterQueue(e *entry, version string, o *kueueClusterQueue) error {
	s := &o.Spec
	cohort := s.CohortName
	switch {
	case version == kueueV1beta1 && s.CohortName != "":
		return e.fail("spec.cohortName", fmt.Errorf("is v1beta2's field; %s spells it spec.cohort", kueueV1beta1))
	case version == kueueV1beta2 && s.Cohort != "":
		return e.fail("spec.cohort", fmt.Errorf("is v1beta1's field; %s spells it spec.cohortName", kueueV1beta2))
	case version == kueueV1beta1:
		cohort = s.Cohort
	}
	cq := &quota.ClusterQueue{
		Name:             o.Metadata.Name,
		Cohort:           cohort,
		ResourceGroups:   resourceGroups(s.ResourceGroups),
		QueueingStrategy: s.QueueingStrategy,
		StopPolicy:       s.StopPolicy,
		FairWeight:       fairWeight(s.FairSharing),
	}
	switch v, ok := o.Metadata.Annotations[quota.AdmissionPlacementAnnotation]; {
	case !ok || v == "false":
	case v == "true":
		cq.AdmissionPlacement = true
	default:
		return e.fail("metadata.annotations["+quota.AdmissionPlacementAnnotation+"]", fmt.Errorf("must be \"true\" or \"false\", got %q", v))
	}
	if ff := s.FlavorFungibility; ff != nil {
		cq.FlavorFungibility = quota.FlavorFungibility{WhenCanBorrow: ff.WhenCanBorrow, WhenCanPreempt: ff.WhenCanPreempt, Preference: ff.Preference}
		if version == kueueV1beta1 {
			cq.FlavorFungibility.WhenCanBorrow = v1beta1Fungibility(cq.FlavorFungibility.WhenCanBorrow)
			cq.FlavorFungibility.WhenCanPreempt = v1beta1Fungibility(cq.FlavorFungibility.WhenCanPreempt)
		}
	}
	if p := s.Preemption; p != nil {
		cq.Preemption.WithinClusterQueue = p.WithinClusterQueue
		cq.Preemption.ReclaimWithinCohort = p.ReclaimWithinCohort
		if bw := p.BorrowWithinCohort; bw != nil {
			cq.Preemption.BorrowWithinCohort = quota.BorrowWithinCohort{Policy: bw.Policy, MaxPriorityThreshold: bw.MaxPriorityThreshold}
		}
	}
	quota.DefaultClusterQueue(cq)
	if s.NamespaceSelector != nil {
		sel, ferr := labelSelector(s.NamespaceSelector)
		if ferr != nil {
			return e.fail("spec.namespaceSelector"+ferr.field, ferr.err)
		}
		cq.NamespaceSelector = sel
	}
	if errs := quota.ValidateClusterQueue(cq); len(errs) > 0 {
		return e.fail("", errs.ToAggregate())
	}
	if cq.StopPolicy == quota.StopPolicyHoldAndDrain {
		return e.fail("spec.stopPolicy", errors.New(`"HoldAndDrain" is not supported by Berth's admission yet (None, or Hold: nothing new is admitted)`))
	}
	b.kueue.objs.ClusterQueues = append(b.kueue.objs.ClusterQueues, cq)
	b.cluster.Origins[cq] = e.at
	return nil
}

func (b *builder) addCohort(e *entry, o *kueueCohort) error {
	c := &quota.Cohort{Name: o.Metadata.Name, Parent: o.Spec.ParentName, ResourceGroups: resourceGroups(o.Spec.ResourceGroups), FairWeight: fairWeight(o.Spec.FairSharing)}
	if errs := quota.ValidateCohort(c); len(errs) > 0 {
		return e.fail("", errs.ToAggregate())
	}
	b.kueue.objs.Cohorts = append(b.kueue.objs.Cohorts, c)
	b.cluster.Origins[c] = e.at
	return nil
}

// finishKueue converts the Workloads once every document (PriorityClasses
// included) is read: priorities are resolved as Kueue's job integrations
// resolve them, pod templates read as pods.
func (b *builder) finishKueue() error {
	k := &b.kueue
	for i, we := range k.workloads {
		w, err := b.kueueWorkload(we)
		if err != nil {
			return err
		}
		if w.Created.IsZero() {
			w.Created = baseTime().Add(time.Duration(i+1) * time.Second)
			if w.Admission != nil && w.Admission.Reserved.IsZero() {
				w.Admission.Reserved = w.Created
			}
		}
		k.objs.Workloads = append(k.objs.Workloads, w)
	}
	for _, j := range k.jobs {
		w, err := b.jobWorkload(j)
		if err != nil {
			return err
		}
		k.objs.Workloads = append(k.objs.Workloads, w)
	}
	for _, s := range k.sets {
		w, err := b.statefulSetWorkload(s)
		if err != nil {
			return err
		}
		k.objs.Workloads = append(k.objs.Workloads, w)
	}
	k.objs.Workloads = append(k.objs.Workloads, b.groupWorkloads()...)
	k.objs.Workloads = append(k.objs.Workloads, b.podWorkloads()...)
	k.objs.Workloads = append(k.objs.Workloads, b.runningPodWorkloads()...)
	if !k.objs.Empty() {
		objs := k.objs
		b.cluster.Queueing = &objs
	}
	return nil
}

func (b *builder) kueueWorkload(we *kueueWorkloadEntry) (*quota.Workload, error) {
	o, e := we.wl, we.e
	s := &o.Spec
	w := &quota.Workload{Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, UID: o.Metadata.UID, QueueName: s.QueueName, Active: s.Active == nil || *s.Active}
	if o.Metadata.CreationTimestamp != nil {
		w.Created = o.Metadata.CreationTimestamp.Time.UTC()
	}
	v1beta1 := o.APIVersion == kueueV1beta1
	switch {
	case v1beta1 && s.PriorityClassRef != nil:
		return nil, e.fail("spec.priorityClassRef", fmt.Errorf("is v1beta2's field; %s uses spec.priorityClassName and spec.priorityClassSource", kueueV1beta1))
	case !v1beta1 && (s.PriorityClassName != "" || s.PriorityClassSource != ""):
		return nil, e.fail("spec.priorityClassName", fmt.Errorf("is v1beta1's field; %s uses spec.priorityClassRef", kueueV1beta2))
	}
	var className, classKind string
	if v1beta1 && s.PriorityClassName != "" {
		className = s.PriorityClassName
		switch s.PriorityClassSource {
		case "kueue.x-k8s.io/workloadpriorityclass":
			classKind = "WorkloadPriorityClass"
		case "scheduling.k8s.io/priorityclass", "":
			classKind = "PriorityClass"
		default:
			return nil, e.fail("spec.priorityClassSource", fmt.Errorf("unsupported value %q: supported values: \"kueue.x-k8s.io/workloadpriorityclass\", \"scheduling.k8s.io/priorityclass\"", s.PriorityClassSource))
		}
	}
	if r := s.PriorityClassRef; r != nil {
		className, classKind = r.Name, r.Kind
	}
	if s.Priority != nil {
		w.Priority, w.HasPriority = *s.Priority, true
	}
	w.PriorityClass = className
	if err := b.resolveWorkloadPriority(w, className, classKind); err != nil {
		w.Error = err.Error()
	}
	for i, ps := range s.PodSets {
		at := fmt.Sprintf("spec.podSets[%d]", i)
		p := quota.PodSet{Name: ps.Name, Count: 1, MinCount: ps.MinCount}
		if p.Name == "" {
			p.Name = "main"
		}
		if ps.Count != nil && *ps.Count > 0 {
			p.Count = *ps.Count
		}
		pod, ferr := convertPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name}, Spec: ps.Template.Spec})
		if ferr != nil {
			return nil, e.fail(at+".template"+ferr.field, ferr.err)
		}
		if a := ps.Template.Spec.Affinity; a != nil && a.NodeAffinity != nil {
			return nil, e.fail(at+".template.spec.affinity.nodeAffinity", errors.New("node affinity in a Workload's pod template is not supported by Berth's admission yet (use nodeSelector)"))
		}
		for ci, c := range ps.Template.Spec.Containers {
			if _, ok := c.Resources.Requests[corev1.ResourcePods]; ok && w.Error == "" {
				w.Error = fmt.Sprintf("invalid Workload: %s.template.spec.containers[%d].resources.requests[pods]: Invalid value: \"pods\": the key is reserved for internal kueue use", at, ci)
			}
		}
		p.Requests = workloadPodRequests(pod)
		p.NodeSelector = pod.NodeSelector
		p.Tolerations = pod.Tolerations
		w.PodSets = append(w.PodSets, p)
	}
	if adm := o.Status.Admission; adm != nil {
		a := &quota.Admission{ClusterQueue: adm.ClusterQueue}
		for _, psa := range adm.PodSetAssignments {
			p := quota.PodSetAssignment{Name: psa.Name, Flavors: psa.Flavors}
			if p.Name == "" {
				p.Name = "main"
			}
			if psa.Count != nil {
				p.Count = *psa.Count
			}
			a.PodSetAssignments = append(a.PodSetAssignments, p)
		}
		for _, c := range o.Status.Conditions {
			if c.Type == "QuotaReserved" && c.Status == metav1.ConditionTrue {
				a.Reserved = c.LastTransitionTime.Time.UTC()
			}
		}
		if a.Reserved.IsZero() {
			a.Reserved = w.Created
		}
		w.Admission = a
	}
	if w.Error == "" {
		if errs := quota.ValidateWorkload(w); len(errs) > 0 {
			w.Error = "invalid Workload: " + errs.ToAggregate().Error()
		}
	}
	// Only Workloads written as such have an origin: those derived from
	// pods, Jobs and groups are not objects of their own.
	b.cluster.Origins[w] = e.at
	return w, nil
}

// workloadPodRequests is what one pod of a pod set requests
// (integrations.PodRequests).
func workloadPodRequests(p *model.Pod) model.ResourceList { return integrations.PodRequests(p) }

// priorities are the classes the manifests define, for workloads'
// priorities.
func (b *builder) priorities() integrations.Priorities {
	return integrations.Priorities{PriorityClasses: b.cluster.PriorityClasses, WorkloadClasses: b.kueue.objs.PriorityClasses}
}

func (b *builder) resolveWorkloadPriority(w *quota.Workload, name, kind string) error {
	return b.priorities().Resolve(w, name, kind)
}
