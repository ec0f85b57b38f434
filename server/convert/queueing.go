package convert

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/fieldpath"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
)

// The queueing objects (Kueue's) are converted to core/quota's types: the
// wire form is checked as the rest of the API checks its fields (names,
// labels, taints, tolerations, enums it knows), Kueue's defaults are
// applied as its defaulting webhook and core/manifest apply them, and the
// result is validated by core/quota, Kueue's webhooks' rules, whose
// field paths (spec.resourceGroups[0]...) are translated to the proto's.

// Field names of the queueing kinds in Object and in paths.
const (
	fieldResourceFlavor = "resource_flavor"
	fieldClusterQueue   = "cluster_queue"
	fieldCohort         = "cohort"
	fieldLocalQueue     = "local_queue"
	fieldWorkloadClass  = "workload_priority_class"
	fieldWorkload       = "workload"
)

// queueKindFields maps the wire queueing kinds to their Object field.
var queueKindFields = map[berthv1.ObjectKind]string{
	berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR:         fieldResourceFlavor,
	berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE:           fieldClusterQueue,
	berthv1.ObjectKind_OBJECT_KIND_COHORT:                  fieldCohort,
	berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE:             fieldLocalQueue,
	berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS: fieldWorkloadClass,
	berthv1.ObjectKind_OBJECT_KIND_WORKLOAD:                fieldWorkload,
}

// QueueKind reports whether kind is one of the queueing (Kueue) kinds.
func QueueKind(kind berthv1.ObjectKind) bool {
	_, ok := queueKindFields[kind]
	return ok
}

// queueKindOf is the wire kind of a core/quota object.
func queueKindOf(obj any) berthv1.ObjectKind {
	switch obj.(type) {
	case *quota.ResourceFlavor:
		return berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR
	case *quota.ClusterQueue:
		return berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE
	case *quota.Cohort:
		return berthv1.ObjectKind_OBJECT_KIND_COHORT
	case *quota.LocalQueue:
		return berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE
	case *quota.WorkloadPriorityClass:
		return berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS
	case *quota.Workload:
		return berthv1.ObjectKind_OBJECT_KIND_WORKLOAD
	}
	return berthv1.ObjectKind_OBJECT_KIND_UNSPECIFIED
}

// QueueRef identifies a core/quota object (a *quota.ResourceFlavor, ...,
// *quota.Workload); its Kind is UNSPECIFIED for another type.
func QueueRef(obj any) Ref {
	r := Ref{Kind: queueKindOf(obj)}
	switch o := obj.(type) {
	case *quota.ResourceFlavor:
		r.Name = o.Name
	case *quota.ClusterQueue:
		r.Name = o.Name
	case *quota.Cohort:
		r.Name = o.Name
	case *quota.LocalQueue:
		r.Namespace, r.Name = o.Namespace, o.Name
	case *quota.WorkloadPriorityClass:
		r.Name = o.Name
	case *quota.Workload:
		r.Namespace, r.Name = o.Namespace, o.Name
	}
	return r
}

// KueuePath is the proto path, relative to the object's message, of a
// field core/quota (Kueue's webhooks) names by Kueue's path:
// "spec.resourceGroups[0].flavors[1].resources[0].nominalQuota" is
// "resource_groups[0].flavors[1].resources[0].nominal_quota",
// "metadata.name" is "name". The fields the proto renames (cohortName,
// parentName) get the proto's names; map keys are kept as they are.
func KueuePath(kueuePath string) string {
	p, _ := strings.CutPrefix(kueuePath, "metadata.")
	p, _ = strings.CutPrefix(p, "spec.")
	if p == "spec" || p == "metadata" {
		return ""
	}
	for _, r := range []struct{ kueue, proto string }{
		{"cohortName", "cohort"}, {"parentName", "parent"},
	} {
		if p == r.kueue || strings.HasPrefix(p, r.kueue+".") || strings.HasPrefix(p, r.kueue+"[") {
			p = r.proto + p[len(r.kueue):]
		}
	}
	return snakeOutsideBrackets(p)
}

// QueueError is err with a *holder.InvalidError it wraps (the holder's
// refusal of a queueing object of kind) as a *FieldError at the object's
// wire path, from the berth.v1.Object; other errors are returned as they
// are.
func QueueError(kind berthv1.ObjectKind, err error) error {
	fe := kueueFieldError(err)
	if fe == nil {
		return err
	}
	return fe.Prefixed(queueKindFields[kind])
}

// kueueFieldError is the first field error of a *holder.InvalidError err
// wraps, at its proto path relative to the object; nil for other errors.
func kueueFieldError(err error) *FieldError {
	var inv *holder.InvalidError
	if !errors.As(err, &inv) {
		return nil
	}
	if len(inv.Errs) == 0 {
		return &FieldError{Reason: inv.Error()}
	}
	return fromKueue(inv.Errs)
}

// fromKueue is the first of errs as a *FieldError at its proto path.
func fromKueue(errs field.ErrorList) *FieldError {
	e := errs[0]
	return &FieldError{Path: KueuePath(e.Field), Reason: e.ErrorBody()}
}

// validated is the first error of a core/quota validation at its proto
// path under p; nil when there is none.
func validated(p path, errs field.ErrorList) *FieldError {
	if len(errs) == 0 {
		return nil
	}
	fe := fromKueue(errs)
	return &FieldError{Path: fieldpath.Join(p.String(), fe.Path), Reason: fe.Reason}
}

func queueingStrategies() enumNames[berthv1.QueueingStrategy, string] {
	return enumNames[berthv1.QueueingStrategy, string]{"", quota.StrictFIFO, quota.BestEffortFIFO}
}

func stopPolicies() enumNames[berthv1.StopPolicy, string] {
	return enumNames[berthv1.StopPolicy, string]{"", quota.StopPolicyNone, quota.StopPolicyHold, quota.StopPolicyHoldAndDrain}
}

func fungibilityPolicies() enumNames[berthv1.FlavorFungibilityPolicy, string] {
	return enumNames[berthv1.FlavorFungibilityPolicy, string]{"", quota.FungibilityMayStopSearch, quota.FungibilityTryNextFlavor}
}

func fungibilityPreferences() enumNames[berthv1.FlavorFungibilityPreference, string] {
	return enumNames[berthv1.FlavorFungibilityPreference, string]{"", quota.BorrowingOverPreemption, quota.PreemptionOverBorrowing}
}

func queuePreemptionPolicies() enumNames[berthv1.QueuePreemptionPolicy, string] {
	return enumNames[berthv1.QueuePreemptionPolicy, string]{"", quota.PolicyNever, quota.PolicyLowerPriority, quota.PolicyLowerOrNewerEqualPriority, quota.PolicyAny}
}

func resourceFlavor(p path, in *berthv1.ResourceFlavor) (*quota.ResourceFlavor, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	if fe := labels(p.field("node_labels"), in.GetNodeLabels()); fe != nil {
		return nil, fe
	}
	out := &quota.ResourceFlavor{Name: in.GetName(), NodeLabels: maps.Clone(in.GetNodeLabels())}
	tp := p.field("node_taints")
	if fe := overCap(tp, len(in.GetNodeTaints()), MaxTaints); fe != nil {
		return nil, fe
	}
	effects := taintEffects()
	for i, t := range in.GetNodeTaints() {
		ip := tp.index(i)
		if t == nil {
			return nil, ip.errorf("required")
		}
		if fe := qualifiedName(ip.field("key"), t.GetKey()); fe != nil {
			return nil, fe
		}
		if fe := labelValue(ip.field("value"), t.GetValue()); fe != nil {
			return nil, fe
		}
		effect, fe := effects.model(ip.field("effect"), t.GetEffect(), false)
		if fe != nil {
			return nil, fe
		}
		out.NodeTaints = append(out.NodeTaints, model.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: effect})
	}
	tols, fe := tolerations(p.field("tolerations"), in.GetTolerations())
	if fe != nil {
		return nil, fe
	}
	out.Tolerations = tols
	if fe := validated(p, quota.ValidateResourceFlavor(out)); fe != nil {
		return nil, fe
	}
	return out, nil
}

// resourceGroups converts quotas; their rules (covered resources, limits,
// counts) are core/quota's, checked by the caller.
func resourceGroups(p path, in []*berthv1.ResourceGroup) ([]quota.ResourceGroup, *FieldError) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]quota.ResourceGroup, 0, len(in))
	for i, rg := range in {
		gp := p.index(i)
		if rg == nil {
			return nil, gp.errorf("required")
		}
		g := quota.ResourceGroup{CoveredResources: slices.Clone(rg.GetCoveredResources())}
		fsp := gp.field("flavors")
		for j, f := range rg.GetFlavors() {
			fp := fsp.index(j)
			if f == nil {
				return nil, fp.errorf("required")
			}
			if fe := subdomain(fp.field("name"), f.GetName()); fe != nil {
				return nil, fe
			}
			fq := quota.FlavorQuotas{Name: f.GetName()}
			rsp := fp.field("resources")
			for k, r := range f.GetResources() {
				if r == nil {
					return nil, rsp.index(k).errorf("required")
				}
				re := quota.ResourceEntry{Name: r.GetName(), ResourceQuota: quota.ResourceQuota{Nominal: r.GetNominalQuota()}}
				if r.BorrowingLimit != nil {
					re.BorrowingLimit = ptr(r.GetBorrowingLimit())
				}
				if r.LendingLimit != nil {
					re.LendingLimit = ptr(r.GetLendingLimit())
				}
				fq.Resources = append(fq.Resources, re)
			}
			g.Flavors = append(g.Flavors, fq)
		}
		out = append(out, g)
	}
	return out, nil
}

// fairWeight is a fair-sharing weight, 1 when none is given (Kueue's
// default).
func fairWeight(in *berthv1.FairSharing) float64 {
	if in == nil || in.Weight == nil {
		return 1
	}
	return in.GetWeight()
}

func clusterQueue(p path, in *berthv1.ClusterQueue) (*quota.ClusterQueue, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	out := &quota.ClusterQueue{
		Name: in.GetName(), Cohort: in.GetCohort(), FairWeight: fairWeight(in.GetFairSharing()),
		AdmissionPlacement: in.GetAdmissionPlacement(),
	}
	var fe *FieldError
	if in.GetNamespaceSelector() != nil {
		if out.NamespaceSelector, fe = labelSelector(p.field("namespace_selector"), in.GetNamespaceSelector()); fe != nil {
			return nil, fe
		}
	}
	if out.ResourceGroups, fe = resourceGroups(p.field("resource_groups"), in.GetResourceGroups()); fe != nil {
		return nil, fe
	}
	if out.QueueingStrategy, fe = queueingStrategies().model(p.field("queueing_strategy"), in.GetQueueingStrategy(), true); fe != nil {
		return nil, fe
	}
	if out.StopPolicy, fe = stopPolicies().model(p.field("stop_policy"), in.GetStopPolicy(), true); fe != nil {
		return nil, fe
	}
	ffp := p.field("flavor_fungibility")
	ff := in.GetFlavorFungibility()
	fungible := fungibilityPolicies()
	if out.FlavorFungibility.WhenCanBorrow, fe = fungible.model(ffp.field("when_can_borrow"), ff.GetWhenCanBorrow(), true); fe != nil {
		return nil, fe
	}
	if out.FlavorFungibility.WhenCanPreempt, fe = fungible.model(ffp.field("when_can_preempt"), ff.GetWhenCanPreempt(), true); fe != nil {
		return nil, fe
	}
	if out.FlavorFungibility.Preference, fe = fungibilityPreferences().model(ffp.field("preference"), ff.GetPreference(), true); fe != nil {
		return nil, fe
	}
	pp := p.field("preemption")
	pr := in.GetPreemption()
	policies := queuePreemptionPolicies()
	if out.Preemption.WithinClusterQueue, fe = policies.model(pp.field("within_cluster_queue"), pr.GetWithinClusterQueue(), true); fe != nil {
		return nil, fe
	}
	if out.Preemption.ReclaimWithinCohort, fe = policies.model(pp.field("reclaim_within_cohort"), pr.GetReclaimWithinCohort(), true); fe != nil {
		return nil, fe
	}
	bw := pr.GetBorrowWithinCohort()
	bwp := pp.field("borrow_within_cohort")
	if out.Preemption.BorrowWithinCohort.Policy, fe = policies.model(bwp.field("policy"), bw.GetPolicy(), true); fe != nil {
		return nil, fe
	}
	if bw != nil && bw.MaxPriorityThreshold != nil {
		out.Preemption.BorrowWithinCohort.MaxPriorityThreshold = ptr(bw.GetMaxPriorityThreshold())
	}
	quota.DefaultClusterQueue(out)
	if fe := validated(p, quota.ValidateClusterQueue(out)); fe != nil {
		return nil, fe
	}
	if out.StopPolicy == quota.StopPolicyHoldAndDrain {
		sp := p.field("stop_policy")
		return nil, sp.errorf("STOP_POLICY_HOLD_AND_DRAIN is not supported by Berth's admission yet (NONE, or HOLD: nothing new is admitted)")
	}
	return out, nil
}

func cohort(p path, in *berthv1.Cohort) (*quota.Cohort, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	out := &quota.Cohort{Name: in.GetName(), Parent: in.GetParent(), FairWeight: fairWeight(in.GetFairSharing())}
	var fe *FieldError
	if out.ResourceGroups, fe = resourceGroups(p.field("resource_groups"), in.GetResourceGroups()); fe != nil {
		return nil, fe
	}
	if fe := validated(p, quota.ValidateCohort(out)); fe != nil {
		return nil, fe
	}
	return out, nil
}

// defaultNamespace is the namespace of a LocalQueue or Workload sent
// without one, as kubectl and core/manifest take it.
const defaultNamespace = "default"

// namespaceOrDefault is a namespaced queueing object's namespace,
// defaultNamespace when empty.
func namespaceOrDefault(p path, ns string) (string, *FieldError) {
	if ns == "" {
		return defaultNamespace, nil
	}
	if fe := dnsLabel(p, ns); fe != nil {
		return "", fe
	}
	return ns, nil
}

func localQueue(p path, in *berthv1.LocalQueue) (*quota.LocalQueue, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	ns, fe := namespaceOrDefault(p.field("namespace"), in.GetNamespace())
	if fe != nil {
		return nil, fe
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	cqp := p.field("cluster_queue")
	if in.GetClusterQueue() == "" {
		return nil, cqp.errorf("required")
	}
	if fe := subdomain(cqp, in.GetClusterQueue()); fe != nil {
		return nil, fe
	}
	out := &quota.LocalQueue{Namespace: ns, Name: in.GetName(), ClusterQueue: in.GetClusterQueue()}
	sp := p.field("stop_policy")
	if out.StopPolicy, fe = stopPolicies().model(sp, in.GetStopPolicy(), true); fe != nil {
		return nil, fe
	}
	if out.StopPolicy != "" && out.StopPolicy != quota.StopPolicyNone {
		return nil, sp.errorf("%s is not supported by Berth's admission yet (only STOP_POLICY_NONE)", in.GetStopPolicy())
	}
	return out, nil
}

func workloadPriorityClass(p path, in *berthv1.WorkloadPriorityClass) (*quota.WorkloadPriorityClass, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	if fe := maxBytes(p.field("description"), in.GetDescription(), MaxDescriptionLength); fe != nil {
		return nil, fe
	}
	return &quota.WorkloadPriorityClass{Name: in.GetName(), Value: in.GetValue(), Description: in.GetDescription()}, nil
}

// reservedRequest is the resource Kueue keeps for its own counting of pods:
// a pod set may not request it.
const reservedRequest = model.ResourcePods

func workload(p path, in *berthv1.Workload) (*quota.Workload, *FieldError) {
	if in == nil {
		return nil, p.errorf("required")
	}
	ns, fe := namespaceOrDefault(p.field("namespace"), in.GetNamespace())
	if fe != nil {
		return nil, fe
	}
	if fe := subdomain(p.field("name"), in.GetName()); fe != nil {
		return nil, fe
	}
	if fe := checkUID(p.field("uid"), in.GetUid(), false); fe != nil {
		return nil, fe
	}
	if fe := optionalSubdomain(p.field("priority_class_name"), in.GetPriorityClassName()); fe != nil {
		return nil, fe
	}
	out := &quota.Workload{
		Namespace: ns, Name: in.GetName(), UID: in.GetUid(), QueueName: in.GetQueueName(),
		PriorityClass: in.GetPriorityClassName(), Active: in.Active == nil || in.GetActive(),
		HoldPods: in.GetHoldPods(),
	}
	if in.Priority != nil {
		out.Priority, out.HasPriority = in.GetPriority(), true
	}
	if out.Created, fe = timestamp(p.field("creation_time"), in.GetCreationTime()); fe != nil {
		return nil, fe
	}
	psp := p.field("pod_sets")
	for i, ps := range in.GetPodSets() {
		ip := psp.index(i)
		if ps == nil {
			return nil, ip.errorf("required")
		}
		set := quota.PodSet{Name: ps.GetName(), Count: ps.GetCount()}
		if set.Name == "" {
			set.Name = "main"
		}
		switch {
		case set.Count < 0:
			return nil, ip.field("count").errorf("must be at least 0, got %d", set.Count)
		case set.Count == 0:
			set.Count = 1
		}
		if ps.MinCount != nil {
			set.MinCount = ptr(ps.GetMinCount())
		}
		tp := ip.field("template")
		tm := ps.GetTemplate()
		rp := tp.field("requests")
		if fe := resources(rp, tm.GetRequests()); fe != nil {
			return nil, fe
		}
		if _, ok := tm.GetRequests()[reservedRequest]; ok {
			return nil, rp.key(reservedRequest).errorf("the key is reserved for internal kueue use")
		}
		if fe := labels(tp.field("node_selector"), tm.GetNodeSelector()); fe != nil {
			return nil, fe
		}
		if set.Tolerations, fe = tolerations(tp.field("tolerations"), tm.GetTolerations()); fe != nil {
			return nil, fe
		}
		set.Requests = cloneResources(tm.GetRequests())
		set.NodeSelector = maps.Clone(tm.GetNodeSelector())
		out.PodSets = append(out.PodSets, set)
	}
	if in.GetAdmission() != nil {
		if out.Admission, fe = workloadAdmission(p.field("admission"), in.GetAdmission(), out); fe != nil {
			return nil, fe
		}
	}
	if fe := validated(p, quota.ValidateWorkload(out)); fe != nil {
		return nil, fe
	}
	return out, nil
}

// workloadAdmission converts a Workload's admission made elsewhere: its
// ClusterQueue, and the quota of pod sets the workload has, each at most
// once, none admitting more pods than its set has.
func workloadAdmission(p path, in *berthv1.WorkloadAdmission, w *quota.Workload) (*quota.Admission, *FieldError) {
	if fe := subdomain(p.field("cluster_queue"), in.GetClusterQueue()); fe != nil {
		return nil, fe
	}
	out := &quota.Admission{ClusterQueue: in.GetClusterQueue(), Reserved: w.Created}
	if in.GetReservedTime() != nil {
		var fe *FieldError
		if out.Reserved, fe = timestamp(p.field("reserved_time"), in.GetReservedTime()); fe != nil {
			return nil, fe
		}
	}
	sets := p.field("pod_sets")
	if len(in.GetPodSets()) == 0 {
		return nil, sets.errorf("at least one pod set's admission is required")
	}
	seen := map[string]bool{}
	for i, psa := range in.GetPodSets() {
		ip := sets.index(i)
		if psa == nil {
			return nil, ip.errorf("required")
		}
		name := psa.GetName()
		if name == "" {
			name = "main"
		}
		set := slices.IndexFunc(w.PodSets, func(ps quota.PodSet) bool { return ps.Name == name })
		switch {
		case set < 0:
			return nil, ip.field("name").errorf("names no pod set of the workload: %q", name)
		case seen[name]:
			return nil, ip.field("name").errorf("pod set %q is admitted twice", name)
		}
		seen[name] = true
		a := quota.PodSetAssignment{Name: name, Count: psa.GetCount()}
		switch max := w.PodSets[set].Count; {
		case a.Count < 0 || a.Count > max:
			return nil, ip.field("count").errorf("must be between 0 and the pod set's count %d, got %d", max, a.Count)
		case a.Count == 0:
			a.Count = max
		}
		fp := ip.field("flavors")
		for _, res := range sortedKeys(psa.GetFlavors()) {
			if err := model.CheckResourceName(res); err != nil {
				return nil, fp.key(res).errorf("%v", err)
			}
			if fe := subdomain(fp.key(res), psa.GetFlavors()[res]); fe != nil {
				return nil, fe
			}
		}
		a.Flavors = maps.Clone(psa.GetFlavors())
		out.PodSetAssignments = append(out.PodSetAssignments, a)
	}
	return out, nil
}

// QueueObjectToProto converts a core/quota object (a *quota.ResourceFlavor,
// ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass or Workload) to
// its wire Object; nil for another type.
func QueueObjectToProto(obj any) *berthv1.Object {
	switch o := obj.(type) {
	case *quota.ResourceFlavor:
		return &berthv1.Object{Kind: &berthv1.Object_ResourceFlavor{ResourceFlavor: ResourceFlavorToProto(o)}}
	case *quota.ClusterQueue:
		return &berthv1.Object{Kind: &berthv1.Object_ClusterQueue{ClusterQueue: ClusterQueueToProto(o)}}
	case *quota.Cohort:
		return &berthv1.Object{Kind: &berthv1.Object_Cohort{Cohort: CohortToProto(o)}}
	case *quota.LocalQueue:
		return &berthv1.Object{Kind: &berthv1.Object_LocalQueue{LocalQueue: LocalQueueToProto(o)}}
	case *quota.WorkloadPriorityClass:
		return &berthv1.Object{Kind: &berthv1.Object_WorkloadPriorityClass{WorkloadPriorityClass: WorkloadPriorityClassToProto(o)}}
	case *quota.Workload:
		return &berthv1.Object{Kind: &berthv1.Object_Workload{Workload: WorkloadToProto(o)}}
	}
	return nil
}

// ResourceFlavorToProto converts a flavor to its wire form.
func ResourceFlavorToProto(in *quota.ResourceFlavor) *berthv1.ResourceFlavor {
	out := &berthv1.ResourceFlavor{Name: in.Name, NodeLabels: maps.Clone(in.NodeLabels), Tolerations: tolerationsToProto(in.Tolerations)}
	effects := taintEffects()
	for _, t := range in.NodeTaints {
		out.NodeTaints = append(out.NodeTaints, &berthv1.Taint{Key: t.Key, Value: t.Value, Effect: effects.proto(t.Effect)})
	}
	return out
}

func tolerationsToProto(in []model.Toleration) []*berthv1.Toleration {
	ops, effects := tolerationOperators(), taintEffects()
	var out []*berthv1.Toleration
	for _, t := range in {
		pt := &berthv1.Toleration{Key: t.Key, Operator: ops.proto(t.Operator), Value: t.Value, Effect: effects.proto(t.Effect)}
		if t.TolerationSeconds != nil {
			pt.TolerationSeconds = ptr(*t.TolerationSeconds)
		}
		out = append(out, pt)
	}
	return out
}

func resourceGroupsToProto(in []quota.ResourceGroup) []*berthv1.ResourceGroup {
	var out []*berthv1.ResourceGroup
	for _, rg := range in {
		g := &berthv1.ResourceGroup{CoveredResources: slices.Clone(rg.CoveredResources)}
		for _, f := range rg.Flavors {
			fq := &berthv1.FlavorQuotas{Name: f.Name}
			for _, r := range f.Resources {
				rq := &berthv1.ResourceQuota{Name: r.Name, NominalQuota: r.Nominal}
				if r.BorrowingLimit != nil {
					rq.BorrowingLimit = ptr(*r.BorrowingLimit)
				}
				if r.LendingLimit != nil {
					rq.LendingLimit = ptr(*r.LendingLimit)
				}
				fq.Resources = append(fq.Resources, rq)
			}
			g.Flavors = append(g.Flavors, fq)
		}
		out = append(out, g)
	}
	return out
}

// ClusterQueueToProto converts a ClusterQueue to its wire form, its
// defaults filled in (the held object has them).
func ClusterQueueToProto(in *quota.ClusterQueue) *berthv1.ClusterQueue {
	fungible, policies := fungibilityPolicies(), queuePreemptionPolicies()
	out := &berthv1.ClusterQueue{
		Name: in.Name, NamespaceSelector: labelSelectorToProto(in.NamespaceSelector), Cohort: in.Cohort,
		ResourceGroups:   resourceGroupsToProto(in.ResourceGroups),
		QueueingStrategy: queueingStrategies().proto(in.QueueingStrategy),
		FlavorFungibility: &berthv1.FlavorFungibility{
			WhenCanBorrow:  fungible.proto(in.FlavorFungibility.WhenCanBorrow),
			WhenCanPreempt: fungible.proto(in.FlavorFungibility.WhenCanPreempt),
			Preference:     fungibilityPreferences().proto(in.FlavorFungibility.Preference),
		},
		Preemption: &berthv1.ClusterQueuePreemption{
			WithinClusterQueue:  policies.proto(in.Preemption.WithinClusterQueue),
			ReclaimWithinCohort: policies.proto(in.Preemption.ReclaimWithinCohort),
			BorrowWithinCohort:  &berthv1.BorrowWithinCohort{Policy: policies.proto(in.Preemption.BorrowWithinCohort.Policy)},
		},
		StopPolicy:         stopPolicies().proto(in.StopPolicy),
		FairSharing:        &berthv1.FairSharing{Weight: ptr(in.FairWeight)},
		AdmissionPlacement: in.AdmissionPlacement,
	}
	if t := in.Preemption.BorrowWithinCohort.MaxPriorityThreshold; t != nil {
		out.Preemption.BorrowWithinCohort.MaxPriorityThreshold = ptr(*t)
	}
	return out
}

// CohortToProto converts a Cohort to its wire form.
func CohortToProto(in *quota.Cohort) *berthv1.Cohort {
	return &berthv1.Cohort{
		Name: in.Name, Parent: in.Parent, ResourceGroups: resourceGroupsToProto(in.ResourceGroups),
		FairSharing: &berthv1.FairSharing{Weight: ptr(in.FairWeight)},
	}
}

// LocalQueueToProto converts a LocalQueue to its wire form.
func LocalQueueToProto(in *quota.LocalQueue) *berthv1.LocalQueue {
	return &berthv1.LocalQueue{Namespace: in.Namespace, Name: in.Name, ClusterQueue: in.ClusterQueue, StopPolicy: stopPolicies().proto(in.StopPolicy)}
}

// WorkloadPriorityClassToProto converts a WorkloadPriorityClass to its
// wire form.
func WorkloadPriorityClassToProto(in *quota.WorkloadPriorityClass) *berthv1.WorkloadPriorityClass {
	return &berthv1.WorkloadPriorityClass{Name: in.Name, Value: in.Value, Description: in.Description}
}

// WorkloadToProto converts an explicit Workload to its wire form (its
// pod sets' defaults filled in).
func WorkloadToProto(in *quota.Workload) *berthv1.Workload {
	out := &berthv1.Workload{
		Namespace: in.Namespace, Name: in.Name, Uid: in.UID, QueueName: in.QueueName,
		PriorityClassName: in.PriorityClass, CreationTime: timestampToProto(in.Created),
		HoldPods: in.HoldPods,
	}
	if in.HasPriority {
		out.Priority = ptr(in.Priority)
	}
	if !in.Active {
		out.Active = ptr(false)
	}
	for _, ps := range in.PodSets {
		w := &berthv1.PodSet{Name: ps.Name, Count: ps.Count, Template: &berthv1.PodSetTemplate{
			Requests: cloneResources(ps.Requests), NodeSelector: maps.Clone(ps.NodeSelector), Tolerations: tolerationsToProto(ps.Tolerations),
		}}
		if ps.MinCount != nil {
			w.MinCount = ptr(*ps.MinCount)
		}
		out.PodSets = append(out.PodSets, w)
	}
	if a := in.Admission; a != nil {
		adm := &berthv1.WorkloadAdmission{ClusterQueue: a.ClusterQueue}
		if !a.Reserved.Equal(in.Created) {
			adm.ReservedTime = timestampToProto(a.Reserved)
		}
		for _, psa := range a.PodSetAssignments {
			adm.PodSets = append(adm.PodSets, &berthv1.PodSetAdmission{Name: psa.Name, Count: psa.Count, Flavors: maps.Clone(psa.Flavors)})
		}
		out.Admission = adm
	}
	return out
}
