package dra

import "hash/fnv"

// nameSuffixAlphabet is kube-apiserver's alphabet for generateName's
// random characters (no vowels, no look-alikes).
const nameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// maxGenerateNameBase is the longest generateName the resourceclaim
// controller uses before it shortens the pod and claim names.
const maxGenerateNameBase = 57

// TemplateClaimName is the name of the claim Berth, playing the
// resourceclaim controller, makes for a pod's claim entry that names a
// template. Kube names it generateName "<pod>-<entry>-" (the pod and entry
// names cut proportionally, without the last hyphen, when longer than 57
// characters) plus 5 random characters; Berth's 5 characters are an FNV-1a
// hash of "<namespace>/<pod>/<entry>" in the apiserver's alphabet, so the
// name is the same on every run and on every replica (and the same as
// kubeoracle's, which uses this scheme).
func TemplateClaimName(namespace, pod, entry string) string {
	base := pod + "-" + entry + "-"
	if len(base) > maxGenerateNameBase {
		base = pod[:len(pod)*maxGenerateNameBase/len(base)] + "-" + entry[:len(entry)*maxGenerateNameBase/len(base)]
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(namespace + "/" + pod + "/" + entry))
	v := h.Sum64()
	var b [5]byte
	for i := range b {
		b[i] = nameSuffixAlphabet[v%uint64(len(nameSuffixAlphabet))]
		v /= uint64(len(nameSuffixAlphabet))
	}
	return base + string(b[:])
}
