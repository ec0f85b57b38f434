package convert_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"
	"k8s.io/apimachinery/pkg/util/validation/field"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/server/convert"
)

func quotaOf(name string, nominal int64, borrow, lend *int64) *berthv1.ResourceQuota {
	return &berthv1.ResourceQuota{Name: name, NominalQuota: nominal, BorrowingLimit: borrow, LendingLimit: lend}
}

// fullQueueObjects sets every field of each queueing kind, with the values
// the defaults would give where the conversion fills them in, so that the
// round trip is exact.
func fullQueueObjects() map[string]*berthv1.Object {
	noSchedule := berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE
	tol := []*berthv1.Toleration{
		{Key: "example.com/gpu", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS, Effect: noSchedule},
		{Key: "spot", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EQUAL, Value: "true", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE, TolerationSeconds: ptr(int64(30))},
	}
	never := berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_NEVER
	return map[string]*berthv1.Object{
		"resource flavor": {Kind: &berthv1.Object_ResourceFlavor{ResourceFlavor: &berthv1.ResourceFlavor{
			Name: "gpu-a100", NodeLabels: map[string]string{"example.com/gpu": "a100"},
			NodeTaints:  []*berthv1.Taint{{Key: "example.com/gpu", Value: "a100", Effect: noSchedule}},
			Tolerations: tol,
		}}},
		"cluster queue": {Kind: &berthv1.Object_ClusterQueue{ClusterQueue: &berthv1.ClusterQueue{
			Name:              "team-a",
			NamespaceSelector: &berthv1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
			Cohort:            "research",
			ResourceGroups: []*berthv1.ResourceGroup{
				{CoveredResources: []string{"cpu", "memory"}, Flavors: []*berthv1.FlavorQuotas{
					{Name: "on-demand", Resources: []*berthv1.ResourceQuota{quotaOf("cpu", 9000, ptr(int64(1000)), ptr(int64(2000))), quotaOf("memory", 36<<30, nil, nil)}},
					{Name: "spot", Resources: []*berthv1.ResourceQuota{quotaOf("cpu", 0, nil, nil), quotaOf("memory", 0, nil, nil)}},
				}},
				{CoveredResources: []string{"example.com/gpu"}, Flavors: []*berthv1.FlavorQuotas{
					{Name: "gpu-a100", Resources: []*berthv1.ResourceQuota{quotaOf("example.com/gpu", 8, nil, ptr(int64(4)))}},
				}},
			},
			QueueingStrategy: berthv1.QueueingStrategy_QUEUEING_STRATEGY_STRICT_FIFO,
			FlavorFungibility: &berthv1.FlavorFungibility{
				WhenCanBorrow:  berthv1.FlavorFungibilityPolicy_FLAVOR_FUNGIBILITY_POLICY_TRY_NEXT_FLAVOR,
				WhenCanPreempt: berthv1.FlavorFungibilityPolicy_FLAVOR_FUNGIBILITY_POLICY_TRY_NEXT_FLAVOR,
				Preference:     berthv1.FlavorFungibilityPreference_FLAVOR_FUNGIBILITY_PREFERENCE_PREEMPTION_OVER_BORROWING,
			},
			Preemption: &berthv1.ClusterQueuePreemption{
				WithinClusterQueue:  berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_LOWER_OR_NEWER_EQUAL_PRIORITY,
				ReclaimWithinCohort: berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_ANY,
				BorrowWithinCohort: &berthv1.BorrowWithinCohort{
					Policy: berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_LOWER_PRIORITY, MaxPriorityThreshold: ptr(int32(100)),
				},
			},
			StopPolicy:         berthv1.StopPolicy_STOP_POLICY_HOLD,
			FairSharing:        &berthv1.FairSharing{Weight: ptr(2.5)},
			AdmissionPlacement: true,
		}}},
		"cluster queue defaults": {Kind: &berthv1.Object_ClusterQueue{ClusterQueue: &berthv1.ClusterQueue{
			Name:             "plain",
			QueueingStrategy: berthv1.QueueingStrategy_QUEUEING_STRATEGY_BEST_EFFORT_FIFO,
			FlavorFungibility: &berthv1.FlavorFungibility{
				WhenCanBorrow:  berthv1.FlavorFungibilityPolicy_FLAVOR_FUNGIBILITY_POLICY_MAY_STOP_SEARCH,
				WhenCanPreempt: berthv1.FlavorFungibilityPolicy_FLAVOR_FUNGIBILITY_POLICY_TRY_NEXT_FLAVOR,
			},
			Preemption: &berthv1.ClusterQueuePreemption{
				WithinClusterQueue: never, ReclaimWithinCohort: never, BorrowWithinCohort: &berthv1.BorrowWithinCohort{Policy: never},
			},
			StopPolicy:  berthv1.StopPolicy_STOP_POLICY_NONE,
			FairSharing: &berthv1.FairSharing{Weight: ptr(1.0)},
		}}},
		"cohort": {Kind: &berthv1.Object_Cohort{Cohort: &berthv1.Cohort{
			Name: "research", Parent: "company",
			ResourceGroups: []*berthv1.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []*berthv1.FlavorQuotas{
				{Name: "on-demand", Resources: []*berthv1.ResourceQuota{quotaOf("cpu", 4000, ptr(int64(0)), ptr(int64(8000)))}},
			}}},
			FairSharing: &berthv1.FairSharing{Weight: ptr(0.0)},
		}}},
		"local queue": {Kind: &berthv1.Object_LocalQueue{LocalQueue: &berthv1.LocalQueue{
			Namespace: "team-a", Name: "main", ClusterQueue: "team-a", StopPolicy: berthv1.StopPolicy_STOP_POLICY_NONE,
		}}},
		"workload priority class": {Kind: &berthv1.Object_WorkloadPriorityClass{WorkloadPriorityClass: &berthv1.WorkloadPriorityClass{
			Name: "high", Value: 1000, Description: "production training",
		}}},
		"workload": {Kind: &berthv1.Object_Workload{Workload: &berthv1.Workload{
			Namespace: "team-a", Name: "train-1", Uid: "7f0c0f0e-8a6c-4d3e-9b1a-2f4f6a8b9c0d", QueueName: "main",
			PriorityClassName: "high", Priority: ptr(int32(1000)), Active: ptr(false), HoldPods: true,
			CreationTime: timestamppb.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
			PodSets: []*berthv1.PodSet{
				{Name: "driver", Count: 1, Template: &berthv1.PodSetTemplate{Requests: map[string]int64{"cpu": 500, "memory": 1 << 30}}},
				{Name: "workers", Count: 8, MinCount: ptr(int32(2)), Template: &berthv1.PodSetTemplate{
					Requests: map[string]int64{"cpu": 4000, "example.com/gpu": 1}, NodeSelector: map[string]string{"example.com/gpu": "a100"}, Tolerations: tol,
				}},
			},
		}}},
		"admitted workload": {Kind: &berthv1.Object_Workload{Workload: &berthv1.Workload{
			Namespace: "team-a", Name: "train-0", QueueName: "main", Priority: ptr(int32(10)),
			CreationTime: timestamppb.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
			PodSets: []*berthv1.PodSet{
				{Name: "driver", Count: 1, Template: &berthv1.PodSetTemplate{Requests: map[string]int64{"cpu": 500}}},
				{Name: "workers", Count: 8, MinCount: ptr(int32(2)), Template: &berthv1.PodSetTemplate{Requests: map[string]int64{"cpu": 4000, "example.com/gpu": 1}}},
			},
			Admission: &berthv1.WorkloadAdmission{
				ClusterQueue: "team-a",
				PodSets: []*berthv1.PodSetAdmission{
					{Name: "driver", Count: 1, Flavors: map[string]string{"cpu": "default"}},
					{Name: "workers", Count: 4, Flavors: map[string]string{"cpu": "default", "example.com/gpu": "a100"}},
				},
				ReservedTime: timestamppb.New(time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC)),
			},
		}}},
	}
}

func TestQueueRoundTrip(t *testing.T) {
	for name, obj := range fullQueueObjects() {
		t.Run(name, func(t *testing.T) {
			m, err := convert.ObjectFromProto(obj)
			if err != nil {
				t.Fatalf("ObjectFromProto: %v", err)
			}
			if diff := cmp.Diff(obj, convert.ObjectToProto(m), protocmp.Transform()); diff != "" {
				t.Errorf("proto -> quota -> proto changed the object (-want +got):\n%s", diff)
			}
			if got, want := m.Ref().Proto(), convert.ObjectRefOf(obj); !cmp.Equal(got, want, protocmp.Transform()) {
				t.Errorf("Ref() = %v, ObjectRefOf = %v", got, want)
			}
			if m.Value() == nil || convert.StoreKind(m.Kind()) == "" {
				t.Errorf("Value() = %v, StoreKind(%v) = %q: the object store cannot apply it", m.Value(), m.Kind(), convert.StoreKind(m.Kind()))
			}
		})
	}
}

// TestQueueDefaults: what is left unset gets Kueue's defaults, as its
// defaulting webhook and core/manifest give them.
func TestQueueDefaults(t *testing.T) {
	cq, err := convert.ObjectFromProto(&berthv1.Object{Kind: &berthv1.Object_ClusterQueue{ClusterQueue: &berthv1.ClusterQueue{Name: "q"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := &quota.ClusterQueue{Name: "q", FairWeight: 1}
	quota.DefaultClusterQueue(want)
	if diff := cmp.Diff(want, cq.Queueing); diff != "" {
		t.Errorf("ClusterQueue defaults (-want +got):\n%s", diff)
	}
	if sel := cq.Queueing.(*quota.ClusterQueue).NamespaceSelector; sel != nil {
		t.Errorf("unset namespace_selector became %+v, want nil (no namespace)", sel)
	}
	wl, err := convert.ObjectFromProto(&berthv1.Object{Kind: &berthv1.Object_Workload{Workload: &berthv1.Workload{
		Name: "w", PodSets: []*berthv1.PodSet{{}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	w := wl.Queueing.(*quota.Workload)
	if w.Namespace != "default" || !w.Active || w.HasPriority || len(w.PodSets) != 1 || w.PodSets[0].Name != "main" || w.PodSets[0].Count != 1 {
		t.Errorf("Workload defaults: got namespace %q active %v priority set %v pod sets %+v; want default, true, false, [main x1]",
			w.Namespace, w.Active, w.HasPriority, w.PodSets)
	}
	lq, err := convert.ObjectFromProto(&berthv1.Object{Kind: &berthv1.Object_LocalQueue{LocalQueue: &berthv1.LocalQueue{Name: "l", ClusterQueue: "q"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ns := lq.Queueing.(*quota.LocalQueue).Namespace; ns != "default" {
		t.Errorf("LocalQueue namespace = %q, want default", ns)
	}
}

func TestKueuePath(t *testing.T) {
	for _, tc := range []struct{ kueue, want string }{
		{"metadata.name", "name"},
		{"metadata.namespace", "namespace"},
		{"spec", ""},
		{"spec.cohortName", "cohort"},
		{"spec.parentName", "parent"},
		{"spec.resourceGroups[0].flavors[1].resources[0].nominalQuota", "resource_groups[0].flavors[1].resources[0].nominal_quota"},
		{"spec.resourceGroups[2].coveredResources[1]", "resource_groups[2].covered_resources[1]"},
		{"spec.preemption.borrowWithinCohort.policy", "preemption.borrow_within_cohort.policy"},
		{"spec.flavorFungibility.whenCanBorrow", "flavor_fungibility.when_can_borrow"},
		{"spec.fairSharing.weight", "fair_sharing.weight"},
		{"spec.nodeLabels[example.com/zoneName]", "node_labels[example.com/zoneName]"},
		{"spec.podSets[1].minCount", "pod_sets[1].min_count"},
		{"spec.clusterQueue", "cluster_queue"},
	} {
		if got := convert.KueuePath(tc.kueue); got != tc.want {
			t.Errorf("KueuePath(%q) = %q, want %q", tc.kueue, got, tc.want)
		}
	}
}

func groups(n int, flavorsEach int, resourcesEach int) []*berthv1.ResourceGroup {
	var out []*berthv1.ResourceGroup
	for g := range n {
		rg := &berthv1.ResourceGroup{}
		for r := range resourcesEach {
			rg.CoveredResources = append(rg.CoveredResources, fmt.Sprintf("example.com/r%d-%d", g, r))
		}
		for f := range flavorsEach {
			fq := &berthv1.FlavorQuotas{Name: fmt.Sprintf("f%d-%d", g, f)}
			for _, r := range rg.CoveredResources {
				fq.Resources = append(fq.Resources, quotaOf(r, 1, nil, nil))
			}
			rg.Flavors = append(rg.Flavors, fq)
		}
		out = append(out, rg)
	}
	return out
}

// TestClusterQueueRefusals: one case per rule of Kueue's ClusterQueue
// webhook and CRD schema (and Berth's own refusals), each naming the field
// by its proto path from the Object.
func TestClusterQueueRefusals(t *testing.T) {
	cqOf := func(f func(cq *berthv1.ClusterQueue)) *berthv1.Object {
		o := proto.Clone(fullQueueObjects()["cluster queue"]).(*berthv1.Object)
		f(o.GetClusterQueue())
		return o
	}
	res := func(cq *berthv1.ClusterQueue) *berthv1.ResourceQuota {
		return cq.ResourceGroups[0].Flavors[0].Resources[0]
	}
	for _, tc := range []struct {
		name, wantPath, wantMsg string
		obj                     *berthv1.Object
	}{
		{"name required", "cluster_queue.name", "required",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.Name = "" })},
		{"name not a subdomain", "cluster_queue.name", "RFC 1123 subdomain",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.Name = "Team_A" })},
		{"cohort not a subdomain", "cluster_queue.cohort", "RFC 1123 subdomain",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.Cohort = "Research!" })},
		{"namespace selector", "cluster_queue.namespace_selector.match_expressions[0].operator", "",
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.NamespaceSelector.MatchExpressions = []*berthv1.LabelSelectorRequirement{{Key: "team"}}
			})},
		{"too many resource groups", "cluster_queue.resource_groups", "must have at most 16 items",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.ResourceGroups = groups(17, 1, 1) })},
		{"too many flavors in a group", "cluster_queue.resource_groups[0].flavors", "must have at most 64 items",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.ResourceGroups = groups(1, 65, 1) })},
		{"covered resource not a qualified name", "cluster_queue.resource_groups[0].covered_resources[0]", "name part must consist of",
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.ResourceGroups[0].CoveredResources[0] = "cpu!"
				res(cq).Name = "cpu!"
			})},
		{"resource in two groups", "cluster_queue.resource_groups[1].covered_resources[0]", "Duplicate value",
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.ResourceGroups[1].CoveredResources[0] = "cpu"
				cq.ResourceGroups[1].Flavors[0].Resources[0].Name = "cpu"
			})},
		{"flavor misses a resource", "cluster_queue.resource_groups[0].flavors[1].resources", "same number of resources",
			cqOf(func(cq *berthv1.ClusterQueue) {
				f := cq.ResourceGroups[0].Flavors[1]
				f.Resources = f.Resources[:1]
			})},
		{"resource out of order", "cluster_queue.resource_groups[0].flavors[0].resources[0].name", "must match the name in coveredResources",
			cqOf(func(cq *berthv1.ClusterQueue) { res(cq).Name = "memory" })},
		{"negative nominal quota", "cluster_queue.resource_groups[0].flavors[0].resources[0].nominal_quota", "must be greater than or equal to 0",
			cqOf(func(cq *berthv1.ClusterQueue) { res(cq).NominalQuota = -1 })},
		{"negative borrowing limit", "cluster_queue.resource_groups[0].flavors[0].resources[0].borrowing_limit", "must be greater than or equal to 0",
			cqOf(func(cq *berthv1.ClusterQueue) { res(cq).BorrowingLimit = ptr(int64(-1)) })},
		{"borrowing limit without cohort", "cluster_queue.resource_groups[0].flavors[0].resources[0].borrowing_limit", "must be nil when cohort is empty",
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.Cohort = ""
				cq.Preemption.BorrowWithinCohort.Policy = berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_NEVER
			})},
		{"lending limit above nominal", "cluster_queue.resource_groups[0].flavors[0].resources[0].lending_limit", "less than or equal to the nominalQuota",
			cqOf(func(cq *berthv1.ClusterQueue) { res(cq).LendingLimit = ptr(int64(9001)) })},
		{"flavor twice", "cluster_queue.resource_groups[1].flavors[0].name", "Duplicate value",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.ResourceGroups[1].Flavors[0].Name = "on-demand" })},
		{"too many flavor-resource combinations", "cluster_queue.resource_groups[0]", "flavor-resource combinations",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.ResourceGroups = groups(1, 64, 9) })},
		{"too many flavors in all", "cluster_queue.resource_groups", "total number of flavors",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.ResourceGroups = groups(5, 52, 1) })},
		{"too many covered resources in all", "cluster_queue.resource_groups", "total number of covered resources",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.ResourceGroups = groups(16, 1, 17) })},
		{"unknown queueing strategy", "cluster_queue.queueing_strategy", "unknown value 7",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.QueueingStrategy = 7 })},
		{"unknown stop policy", "cluster_queue.stop_policy", "unknown value 9",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.StopPolicy = 9 })},
		{"hold and drain", "cluster_queue.stop_policy", "not supported by Berth's admission yet",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.StopPolicy = berthv1.StopPolicy_STOP_POLICY_HOLD_AND_DRAIN })},
		{"within cluster queue Any", "cluster_queue.preemption.within_cluster_queue", `Unsupported value: "Any"`,
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.Preemption.WithinClusterQueue = berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_ANY
			})},
		{"reclaim LowerOrNewerEqualPriority", "cluster_queue.preemption.reclaim_within_cohort", `Unsupported value: "LowerOrNewerEqualPriority"`,
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.Preemption.ReclaimWithinCohort = berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_LOWER_OR_NEWER_EQUAL_PRIORITY
			})},
		{"borrow within cohort Any", "cluster_queue.preemption.borrow_within_cohort.policy", `Unsupported value: "Any"`,
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.Preemption.BorrowWithinCohort.Policy = berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_ANY
			})},
		{"borrow within cohort without reclaim", "cluster_queue.preemption", "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.Preemption.ReclaimWithinCohort = berthv1.QueuePreemptionPolicy_QUEUE_PREEMPTION_POLICY_NEVER
			})},
		{"unknown fungibility", "cluster_queue.flavor_fungibility.when_can_borrow", "unknown value 5",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.FlavorFungibility.WhenCanBorrow = 5 })},
		{"preference without TryNextFlavor", "cluster_queue.flavor_fungibility.preference", "requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor",
			cqOf(func(cq *berthv1.ClusterQueue) {
				cq.FlavorFungibility.WhenCanBorrow = berthv1.FlavorFungibilityPolicy_FLAVOR_FUNGIBILITY_POLICY_MAY_STOP_SEARCH
			})},
		{"negative weight", "cluster_queue.fair_sharing.weight", "must be greater than or equal to 0",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.FairSharing.Weight = ptr(-1.0) })},
		{"tiny weight", "cluster_queue.fair_sharing.weight", "weight must be > 10e-9",
			cqOf(func(cq *berthv1.ClusterQueue) { cq.FairSharing.Weight = ptr(1e-12) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRefusal(t, tc.obj, tc.wantPath, tc.wantMsg)
		})
	}
}

// TestQueueRefusals: the other kinds' rules.
func TestQueueRefusals(t *testing.T) {
	edit := func(name string, f func(o *berthv1.Object)) *berthv1.Object {
		o := proto.Clone(fullQueueObjects()[name]).(*berthv1.Object)
		f(o)
		return o
	}
	for _, tc := range []struct {
		name, wantPath, wantMsg string
		obj                     *berthv1.Object
	}{
		{"flavor label value", "resource_flavor.node_labels[example.com/gpu]", "a valid label must be",
			edit("resource flavor", func(o *berthv1.Object) { o.GetResourceFlavor().NodeLabels["example.com/gpu"] = "a 100" })},
		{"flavor taint without effect", "resource_flavor.node_taints[0].effect", "required",
			edit("resource flavor", func(o *berthv1.Object) { o.GetResourceFlavor().NodeTaints[0].Effect = 0 })},
		{"flavor taint without key", "resource_flavor.node_taints[0].key", "required",
			edit("resource flavor", func(o *berthv1.Object) { o.GetResourceFlavor().NodeTaints[0].Key = "" })},
		{"flavor toleration", "resource_flavor.tolerations[1].value", "must be empty",
			edit("resource flavor", func(o *berthv1.Object) {
				o.GetResourceFlavor().Tolerations[1].Operator = berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS
			})},
		{"cohort its own parent", "cohort.parent", "cannot be the cohort itself",
			edit("cohort", func(o *berthv1.Object) { o.GetCohort().Parent = "research" })},
		{"cohort limit without parent", "cohort.resource_groups[0].flavors[0].resources[0].borrowing_limit", "must be nil when parent is empty",
			edit("cohort", func(o *berthv1.Object) { o.GetCohort().Parent = "" })},
		{"cohort lending beyond nominal is allowed, a negative one is not", "cohort.resource_groups[0].flavors[0].resources[0].lending_limit", "greater than or equal to 0",
			edit("cohort", func(o *berthv1.Object) {
				o.GetCohort().ResourceGroups[0].Flavors[0].Resources[0].LendingLimit = ptr(int64(-1))
			})},
		{"local queue without cluster queue", "local_queue.cluster_queue", "required",
			edit("local queue", func(o *berthv1.Object) { o.GetLocalQueue().ClusterQueue = "" })},
		{"local queue bad namespace", "local_queue.namespace", "RFC 1123 label",
			edit("local queue", func(o *berthv1.Object) { o.GetLocalQueue().Namespace = "Team.A" })},
		{"local queue hold", "local_queue.stop_policy", "not supported by Berth's admission yet",
			edit("local queue", func(o *berthv1.Object) { o.GetLocalQueue().StopPolicy = berthv1.StopPolicy_STOP_POLICY_HOLD })},
		{"priority class name", "workload_priority_class.name", "required",
			edit("workload priority class", func(o *berthv1.Object) { o.GetWorkloadPriorityClass().Name = "" })},
		{"workload without pod sets", "workload.pod_sets", "at least one pod set is required",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().PodSets = nil })},
		{"workload too many pod sets", "workload.pod_sets", "must have at most 8 items",
			edit("workload", func(o *berthv1.Object) {
				w := o.GetWorkload()
				w.PodSets = nil
				for i := range 9 {
					w.PodSets = append(w.PodSets, &berthv1.PodSet{Name: fmt.Sprintf("p%d", i)})
				}
			})},
		{"workload pod set twice", "workload.pod_sets[1].name", "Duplicate value",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().PodSets[1].Name = "driver" })},
		{"workload pod set name", "workload.pod_sets[0].name", "RFC 1123 label",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().PodSets[0].Name = "Driver" })},
		{"workload min count above count", "workload.pod_sets[1].min_count", "less or equal to 8",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().PodSets[1].MinCount = ptr(int32(9)) })},
		{"workload two min counts", "workload.pod_sets", "at most one podSet can use minCount",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().PodSets[0].MinCount = ptr(int32(1)) })},
		{"workload negative count", "workload.pod_sets[0].count", "at least 0",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().PodSets[0].Count = -1 })},
		{"workload requests pods", "workload.pod_sets[0].template.requests[pods]", "reserved for internal kueue use",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().PodSets[0].Template.Requests["pods"] = 1 })},
		{"workload negative request", "workload.pod_sets[0].template.requests[cpu]", "",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().PodSets[0].Template.Requests["cpu"] = -1 })},
		{"workload queue name", "workload.queue_name", "RFC 1123 subdomain",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().QueueName = "Main" })},
		{"admission without cluster queue", "workload.admission.cluster_queue", "required",
			edit("admitted workload", func(o *berthv1.Object) { o.GetWorkload().Admission.ClusterQueue = "" })},
		{"admission without pod sets", "workload.admission.pod_sets", "at least one pod set's admission is required",
			edit("admitted workload", func(o *berthv1.Object) { o.GetWorkload().Admission.PodSets = nil })},
		{"admission of an unknown pod set", "workload.admission.pod_sets[1].name", "names no pod set of the workload",
			edit("admitted workload", func(o *berthv1.Object) { o.GetWorkload().Admission.PodSets[1].Name = "ps" })},
		{"admission of a pod set twice", "workload.admission.pod_sets[1].name", "admitted twice",
			edit("admitted workload", func(o *berthv1.Object) { o.GetWorkload().Admission.PodSets[1].Name = "driver" })},
		{"admission of more pods than the set has", "workload.admission.pod_sets[1].count", "between 0 and the pod set's count 8, got 9",
			edit("admitted workload", func(o *berthv1.Object) { o.GetWorkload().Admission.PodSets[1].Count = 9 })},
		{"admission flavor name", "workload.admission.pod_sets[0].flavors[cpu]", "RFC 1123 subdomain",
			edit("admitted workload", func(o *berthv1.Object) { o.GetWorkload().Admission.PodSets[0].Flavors["cpu"] = "Default" })},
		{"workload uid too long", "workload.uid", "must be at most 256 bytes",
			edit("workload", func(o *berthv1.Object) { o.GetWorkload().Uid = strings.Repeat("u", 257) })},
		{"priority class description too long", "workload_priority_class.description", "must be at most",
			edit("workload priority class", func(o *berthv1.Object) {
				o.GetWorkloadPriorityClass().Description = strings.Repeat("d", convert.MaxDescriptionLength+1)
			})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRefusal(t, tc.obj, tc.wantPath, tc.wantMsg)
		})
	}
}

func checkRefusal(t *testing.T, obj *berthv1.Object, wantPath, wantMsg string) {
	t.Helper()
	_, err := convert.ObjectFromProto(obj)
	var fe *convert.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("ObjectFromProto = %v, want a *FieldError at %s", err, wantPath)
	}
	if fe.Path != wantPath || !strings.Contains(fe.Reason, wantMsg) {
		t.Errorf("refused at %q: %q; want %q containing %q", fe.Path, fe.Reason, wantPath, wantMsg)
	}
}

// TestQueueError: the holder's refusals get the object's wire path.
func TestQueueError(t *testing.T) {
	err := fmt.Errorf("upsert: %w", &holder.InvalidError{Kind: holder.KindClusterQueue, Key: "q", Errs: field.ErrorList{
		field.Invalid(field.NewPath("spec", "resourceGroups").Index(0).Child("flavors").Index(1).Child("resources").Index(0).Child("lendingLimit"), "5", "must be less than or equal to the nominalQuota"),
		field.Required(field.NewPath("metadata", "name"), ""),
	}})
	got := convert.QueueError(berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, err)
	var fe *convert.FieldError
	if !errors.As(got, &fe) {
		t.Fatalf("QueueError = %v, want a *FieldError", got)
	}
	if want := "cluster_queue.resource_groups[0].flavors[1].resources[0].lending_limit"; fe.Path != want {
		t.Errorf("path = %q, want %q", fe.Path, want)
	}
	if !strings.Contains(fe.Reason, "less than or equal to the nominalQuota") {
		t.Errorf("reason = %q", fe.Reason)
	}
	other := errors.New("boom")
	if got := convert.QueueError(berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, other); got != other {
		t.Errorf("QueueError(other) = %v, want it unchanged", got)
	}
}
