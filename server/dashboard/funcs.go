package dashboard

import (
	"html/template"
	"net/url"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// templateFuncs are the templates' helpers.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"state": stateName, "time": timeString, "podPath": podPath,
		"add":  func(a, b int) int { return a + b },
		"half": func(a int) int { return a / 2 },
	}
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
