package dashboard

import (
	"html/template"
	"net/url"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// templateFuncs are the templates' helpers; descheduler and queues add
// their pages to the navigation.
func templateFuncs(descheduler, queues bool) template.FuncMap {
	return template.FuncMap{
		"state": stateName, "time": timeString, "podPath": podPath, "nodePath": nodePath,
		"add":           func(a, b int) int { return a + b },
		"half":          func(a int) int { return a / 2 },
		"navEntries":    func() []navEntry { return navEntries(descheduler, queues) },
		"quantity":      quantity,
		"workloadState": workloadStateName,
	}
}

// navEntry is one page of the header's navigation; Key is its access key.
type navEntry struct {
	Nav, Path, Label, Key string
}

// navEntries are the header's pages, in order. The queues page is listed
// when berthd runs Kueue admission, the descheduler's when it runs a
// policy (its page says so otherwise).
func navEntries(descheduler, queues bool) []navEntry {
	e := []navEntry{
		{Nav: "queue", Path: "/", Label: "Queue", Key: "q"},
		{Nav: "pods", Path: "/pods", Label: "Pods", Key: "p"},
		{Nav: "nodes", Path: "/nodes", Label: "Nodes", Key: "n"},
		{Nav: "decisions", Path: "/decisions", Label: "Decisions", Key: "d"},
	}
	if queues {
		e = append(e, navEntry{Nav: "queues", Path: "/queues", Label: "Queues", Key: "k"})
	}
	if descheduler {
		e = append(e, navEntry{Nav: "deschedule", Path: "/deschedule", Label: "Descheduler", Key: "s"})
	}
	return e
}

// timeString is a timestamp in UTC, "" when unset.
func timeString(ts *timestamppb.Timestamp) string {
	if ts == nil {
		return ""
	}
	return ts.AsTime().UTC().Format(time.DateTime + " UTC")
}

// podPath is the pod page of ref.
func podPath(ref *berthv1.PodRef) string {
	return "/pods/" + url.PathEscape(ref.GetNamespace()) + "/" + url.PathEscape(ref.GetName())
}
