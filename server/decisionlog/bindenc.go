package decisionlog

import (
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota/workloadpods"
	"github.com/berthsched/berth/server/podbook"
)

// Field numbers of the messages a Bind payload holds (decision.proto,
// object.proto).
const (
	fieldDecisionSchedulerName protowire.Number = 3
	fieldDecisionPod           protowire.Number = 4
	fieldDecisionBind          protowire.Number = 10
	fieldPodRefNamespace       protowire.Number = 1
	fieldPodRefName            protowire.Number = 2
	fieldPodRefUID             protowire.Number = 3
	fieldBindNode              protowire.Number = 1
)

// bindRecord is what Bind writes, in one allocation: the book's record
// (podbook.BindValue: the revision hint, then the payload), whose tail is the record's
// payload, and then the pod's uid as the keyspace key. A Bind is the
// decision made per pod, so it skips building and marshalling a
// berthv1.Decision; the bytes are those encode(bindDecision(pod, node))
// gives (TestBindPayload).
type bindRecord struct {
	assumed []byte // podbook.BindValue(from, payload)
	payload []byte // the tail of assumed
	key     []byte // the pod's uid
}

// newBindRecord encodes the Bind of pod to node with from as the assumed
// value's revision hint. It returns false for strings that are not valid
// UTF-8, which encode refuses: the caller falls back to it for the error.
func newBindRecord(pod *model.Pod, node string, from uint64) (bindRecord, bool) {
	profile := profileOf(pod)
	if pod.SchedulingGroup != "" {
		return bindRecord{}, false // a gang's Bind names its group: the general encoder writes it
	}
	if _, held := workloadpods.Of(pod); held {
		return bindRecord{}, false // its Bind names its pod set (held_pod): the general encoder writes it
	}
	if !utf8.ValidString(profile) || !utf8.ValidString(pod.Namespace) || !utf8.ValidString(pod.Name) ||
		!utf8.ValidString(pod.UID) || !utf8.ValidString(node) {
		return bindRecord{}, false
	}
	ref := stringFieldSize(fieldPodRefNamespace, pod.Namespace) + stringFieldSize(fieldPodRefName, pod.Name) +
		stringFieldSize(fieldPodRefUID, pod.UID)
	bind := stringFieldSize(fieldBindNode, node)
	size := stringFieldSize(fieldDecisionSchedulerName, profile) +
		protowire.SizeTag(fieldDecisionPod) + protowire.SizeBytes(ref) +
		protowire.SizeTag(fieldDecisionBind) + protowire.SizeBytes(bind)

	buf := make([]byte, podbook.BindHintSize, podbook.BindHintSize+size+len(pod.UID))
	podbook.SetBindHint(buf, from)
	// Fields in number order, empty strings left out, as a deterministic
	// proto3 marshal does.
	buf = appendStringField(buf, fieldDecisionSchedulerName, profile)
	buf = protowire.AppendTag(buf, fieldDecisionPod, protowire.BytesType)
	buf = protowire.AppendVarint(buf, uint64(ref))
	buf = appendStringField(buf, fieldPodRefNamespace, pod.Namespace)
	buf = appendStringField(buf, fieldPodRefName, pod.Name)
	buf = appendStringField(buf, fieldPodRefUID, pod.UID)
	buf = protowire.AppendTag(buf, fieldDecisionBind, protowire.BytesType)
	buf = protowire.AppendVarint(buf, uint64(bind))
	buf = appendStringField(buf, fieldBindNode, node)
	end := len(buf)
	buf = append(buf, pod.UID...)
	return bindRecord{assumed: buf[:end:end], payload: buf[podbook.BindHintSize:end:end], key: buf[end:]}, true
}

// stringFieldSize is the encoded size of a proto3 string field: nothing
// when empty.
func stringFieldSize(n protowire.Number, s string) int {
	if s == "" {
		return 0
	}
	return protowire.SizeTag(n) + protowire.SizeBytes(len(s))
}

func appendStringField(b []byte, n protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendString(b, s)
}
