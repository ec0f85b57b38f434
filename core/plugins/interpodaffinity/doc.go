// Package interpodaffinity is the InterPodAffinity plugin: it places a pod
// relative to the pods already running, by topology domain (the nodes that
// share a value of a node label, the term's topologyKey).
//
// PreFilter counts, per topology pair (key, value), the running pods that
// match the incoming pod's required affinity terms (a pod counts only if it
// matches all of them), those matching its required anti-affinity terms,
// and those whose own required anti-affinity terms match the incoming pod
// (symmetry): in one pass over the nodes it is given when the pod has
// required terms, else over the snapshot's
// HavePodsWithRequiredAntiAffinityList only. AddPod and RemovePod
// update the counts for nominated pods and preemption victims. Filter then
// answers per node from the counts: a node must be in a domain holding a pod
// that matches every affinity term (unless no such pod exists anywhere and
// the pod matches its own terms: the first pod of a group), in no domain
// holding a pod its anti-affinity terms match, and in no domain of a
// running pod whose anti-affinity the incoming pod matches.
//
// The namespaceSelector of the incoming pod's terms is resolved once per
// cycle through the handle's NamespaceLister; the existing pods' terms are
// matched against the labels of the incoming pod's namespace.
// matchLabelKeys and mismatchLabelKeys are already folded into the term
// selectors by framework.NewPodInfo, as the Kubernetes API server does when
// a pod is created.
//
// PreScore sums, per topology pair, the weights of the incoming pod's
// preferred terms matched by running pods (anti-affinity negative), the
// running pods' preferred terms matched by the incoming pod, and
// hardPodAffinityWeight for each of their required affinity terms the
// incoming pod matches. It reads every node of the snapshot when the pod
// has preferred terms, else only HavePodsWithAffinityList. Score adds up
// the pairs of a node and NormalizeScore maps the scores linearly onto
// 0..100 between the lowest and the highest.
//
// Where kube-scheduler's behaviour is odd, Berth keeps it for parity: a
// namespaceSelector of the incoming pod that matches an empty label set
// (only NotIn or DoesNotExist requirements) selects every namespace, and
// the first-pod exception holds while no matching pod runs on a node that
// has the term's topology key.
package interpodaffinity
