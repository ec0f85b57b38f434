package modeltest

// RequestedPriority gives the pod an explicit priority without a class, as
// spec.priority does: admission keeps it (Priority alone is what admission
// computes and would be overwritten).
func (b *PodBuilder) RequestedPriority(v int32) *PodBuilder {
	b.p.RequestedPriority = &v
	b.p.Priority = v
	return b
}
