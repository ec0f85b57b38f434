package quota

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berthsched/berth/core/model"
)

// Messages of Kueue's webhooks.
const (
	limitIsEmptyMsg      = "must be nil when %s is empty"
	lendingLimitMsg      = "must be less than or equal to the nominalQuota"
	maxResourceGroups    = 16
	maxFlavorsPerGroup   = 64
	maxPodSets           = 8
	maxTotalFlavors      = 256
	maxCoveredResources  = 256
	maxFlavorResourcesRG = 512
)

var (
	queueingStrategies = []string{StrictFIFO, BestEffortFIFO}
	withinCQPolicies   = []string{PolicyNever, PolicyLowerPriority, PolicyLowerOrNewerEqualPriority}
	reclaimPolicies    = []string{PolicyNever, PolicyLowerPriority, PolicyAny}
	borrowPolicies     = []string{PolicyNever, PolicyLowerPriority}
	fungibilities      = []string{FungibilityMayStopSearch, FungibilityTryNextFlavor}
	preferences        = []string{BorrowingOverPreemption, PreemptionOverBorrowing}
	stopPolicies       = []string{StopPolicyNone, StopPolicyHold, StopPolicyHoldAndDrain}
)

func quantity(res string, v int64) string {
	if res == model.ResourceCPU {
		return resource.NewMilliQuantity(v, resource.DecimalSI).String()
	}
	return resource.NewQuantity(v, resource.DecimalSI).String()
}

func oneOf(path *field.Path, v string, allowed []string) field.ErrorList {
	if slices.Contains(allowed, v) {
		return nil
	}
	return field.ErrorList{field.NotSupported(path, v, allowed)}
}

func validateName(path *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "name or generateName is required")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// ValidateResourceFlavor checks a ResourceFlavor as Kueue's webhook does.
func ValidateResourceFlavor(f *ResourceFlavor) field.ErrorList {
	errs := validateName(field.NewPath("metadata", "name"), f.Name)
	spec := field.NewPath("spec")
	for k, v := range f.NodeLabels {
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(spec.Child("nodeLabels"), k, msg))
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(spec.Child("nodeLabels").Key(k), v, msg))
		}
	}
	for i, t := range f.NodeTaints {
		if t.Key == "" {
			errs = append(errs, field.Required(spec.Child("nodeTaints").Index(i).Child("key"), ""))
		}
	}
	return errs
}

type rgConfig struct {
	hasParent, isCohort bool
}

func validateResourceGroups(rgs []ResourceGroup, cfg rgConfig, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rgs) > maxResourceGroups {
		errs = append(errs, field.TooMany(path, len(rgs), maxResourceGroups))
	}
	seenRes, seenFlavors := map[string]bool{}, map[string]bool{}
	total, totalCovered := 0, 0
	for i, rg := range rgs {
		p := path.Index(i)
		total += len(rg.Flavors)
		totalCovered += len(rg.CoveredResources)
		if len(rg.Flavors) > maxFlavorsPerGroup {
			errs = append(errs, field.TooMany(p.Child("flavors"), len(rg.Flavors), maxFlavorsPerGroup))
		}
		for j, name := range rg.CoveredResources {
			rp := p.Child("coveredResources").Index(j)
			for _, msg := range validation.IsQualifiedName(name) {
				errs = append(errs, field.Invalid(rp, name, msg))
			}
			if seenRes[name] {
				errs = append(errs, field.Duplicate(rp, name))
			}
			seenRes[name] = true
		}
		combos := 0
		for j, f := range rg.Flavors {
			fp := p.Child("flavors").Index(j)
			combos += len(f.Resources)
			if len(f.Resources) != len(rg.CoveredResources) {
				errs = append(errs, field.Invalid(fp.Child("resources"), len(f.Resources), "flavor must have the same number of resources as the coveredResources"))
			}
			for k, r := range f.Resources {
				if k >= len(rg.CoveredResources) {
					break
				}
				rp := fp.Child("resources").Index(k)
				if r.Name != rg.CoveredResources[k] {
					errs = append(errs, field.Invalid(rp.Child("name"), r.Name, "must match the name in coveredResources"))
				}
				errs = append(errs, nonNegative(rp.Child("nominalQuota"), r.Name, r.Nominal)...)
				for _, l := range []struct {
					name string
					v    *int64
				}{{"borrowingLimit", r.BorrowingLimit}, {"lendingLimit", r.LendingLimit}} {
					if l.v == nil {
						continue
					}
					lp := rp.Child(l.name)
					errs = append(errs, nonNegative(lp, r.Name, *l.v)...)
					if !cfg.hasParent {
						what := "cohort"
						if cfg.isCohort {
							what = "parent"
						}
						errs = append(errs, field.Invalid(lp, quantity(r.Name, *l.v), fmt.Sprintf(limitIsEmptyMsg, what)))
					}
				}
				if r.LendingLimit != nil && !cfg.isCohort && *r.LendingLimit > r.Nominal {
					errs = append(errs, field.Invalid(rp.Child("lendingLimit"), quantity(r.Name, *r.LendingLimit), lendingLimitMsg))
				}
			}
			if seenFlavors[f.Name] {
				errs = append(errs, field.Duplicate(fp.Child("name"), f.Name))
			}
			seenFlavors[f.Name] = true
		}
		if combos > maxFlavorResourcesRG {
			errs = append(errs, field.Invalid(p, combos, fmt.Sprintf("number of flavor-resource combinations in a resourceGroup must be ≤ 512, got %d", combos)))
		}
	}
	if total > maxTotalFlavors {
		errs = append(errs, field.Invalid(path, total, fmt.Sprintf("total number of flavors across all resourceGroups must be ≤ 256, got %d", total)))
	}
	if totalCovered > maxCoveredResources {
		errs = append(errs, field.Invalid(path, totalCovered, fmt.Sprintf("total number of covered resources across all resourceGroups must be ≤ 256, got %d", totalCovered)))
	}
	return errs
}

func nonNegative(path *field.Path, res string, v int64) field.ErrorList {
	if v < 0 {
		return field.ErrorList{field.Invalid(path, quantity(res, v), apimachineryvalidation.IsNegativeErrorMsg)}
	}
	return nil
}

func validateWeight(path *field.Path, w float64) field.ErrorList {
	if w < 0 {
		return field.ErrorList{field.Invalid(path, fmt.Sprint(w), apimachineryvalidation.IsNegativeErrorMsg)}
	}
	if w != 0 && w < 10e-9 {
		return field.ErrorList{field.Invalid(path, fmt.Sprint(w), "When not 0, weight must be > 10e-9")}
	}
	return nil
}

// ValidateClusterQueue checks a ClusterQueue as Kueue's webhook and its
// CRD schema do (enums included).
func ValidateClusterQueue(cq *ClusterQueue) field.ErrorList {
	errs := validateName(field.NewPath("metadata", "name"), cq.Name)
	spec := field.NewPath("spec")
	if cq.Cohort != "" {
		errs = append(errs, validateName(spec.Child("cohortName"), cq.Cohort)...)
	}
	errs = append(errs, validateResourceGroups(cq.ResourceGroups, rgConfig{hasParent: cq.Cohort != ""}, spec.Child("resourceGroups"))...)
	errs = append(errs, oneOf(spec.Child("queueingStrategy"), cq.QueueingStrategy, queueingStrategies)...)
	errs = append(errs, oneOf(spec.Child("stopPolicy"), cq.StopPolicy, stopPolicies)...)
	pp := spec.Child("preemption")
	p := cq.Preemption
	errs = append(errs, oneOf(pp.Child("withinClusterQueue"), p.WithinClusterQueue, withinCQPolicies)...)
	errs = append(errs, oneOf(pp.Child("reclaimWithinCohort"), p.ReclaimWithinCohort, reclaimPolicies)...)
	errs = append(errs, oneOf(pp.Child("borrowWithinCohort", "policy"), p.BorrowWithinCohort.Policy, borrowPolicies)...)
	if p.ReclaimWithinCohort == PolicyNever && p.BorrowWithinCohort.Policy != PolicyNever {
		errs = append(errs, field.Invalid(pp, fmt.Sprintf("%+v", p), "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"))
	}
	fp := spec.Child("flavorFungibility")
	ff := cq.FlavorFungibility
	errs = append(errs, oneOf(fp.Child("whenCanBorrow"), ff.WhenCanBorrow, fungibilities)...)
	errs = append(errs, oneOf(fp.Child("whenCanPreempt"), ff.WhenCanPreempt, fungibilities)...)
	if ff.Preference != "" {
		errs = append(errs, oneOf(fp.Child("preference"), ff.Preference, preferences)...)
		if ff.WhenCanBorrow != FungibilityTryNextFlavor || ff.WhenCanPreempt != FungibilityTryNextFlavor {
			errs = append(errs, field.Invalid(fp.Child("preference"), ff.Preference,
				fmt.Sprintf("preference %q requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor", ff.Preference)))
		}
	}
	errs = append(errs, validateWeight(spec.Child("fairSharing", "weight"), cq.FairWeight)...)
	return errs
}

// ValidateCohort checks a Cohort as Kueue's webhook does.
func ValidateCohort(c *Cohort) field.ErrorList {
	errs := validateName(field.NewPath("metadata", "name"), c.Name)
	spec := field.NewPath("spec")
	if c.Parent != "" {
		errs = append(errs, validateName(spec.Child("parentName"), c.Parent)...)
		if c.Parent == c.Name {
			errs = append(errs, field.Invalid(spec.Child("parentName"), c.Parent, "cannot be the cohort itself"))
		}
	}
	errs = append(errs, validateResourceGroups(c.ResourceGroups, rgConfig{hasParent: c.Parent != "", isCohort: true}, spec.Child("resourceGroups"))...)
	errs = append(errs, validateWeight(spec.Child("fairSharing", "weight"), c.FairWeight)...)
	return errs
}

// ValidateWorkload checks a Workload as Kueue's webhook does (and the
// CRD schema's limits on pod sets).
func ValidateWorkload(w *Workload) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if len(w.PodSets) == 0 {
		errs = append(errs, field.Required(spec.Child("podSets"), "at least one pod set is required"))
	}
	if len(w.PodSets) > maxPodSets {
		errs = append(errs, field.TooMany(spec.Child("podSets"), len(w.PodSets), maxPodSets))
	}
	seen := map[string]bool{}
	for i, ps := range w.PodSets {
		p := spec.Child("podSets").Index(i)
		for _, msg := range validation.IsDNS1123Label(ps.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), ps.Name, msg))
		}
		if seen[ps.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), ps.Name))
		}
		seen[ps.Name] = true
		if ps.MinCount != nil && (*ps.MinCount < 0 || *ps.MinCount > ps.Count) {
			errs = append(errs, field.Invalid(p.Child("minCount"), *ps.MinCount, fmt.Sprintf("should be positive and less or equal to %d", ps.Count)))
		}
	}
	variable := 0
	for _, ps := range w.PodSets {
		if ps.MinCount != nil {
			variable++
		}
	}
	if variable > 1 {
		errs = append(errs, field.Invalid(spec.Child("podSets"), variable, "at most one podSet can use minCount"))
	}
	if w.QueueName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(w.QueueName) {
			errs = append(errs, field.Invalid(spec.Child("queueName"), w.QueueName, msg))
		}
	}
	return errs
}
