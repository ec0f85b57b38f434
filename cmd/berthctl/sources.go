package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/server/convert"
)

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// manifestPaths expands -f values: "-" is standard input (once), a
// directory stands for its *.yaml, *.yml and *.json files (not
// recursively, sorted by name).
func manifestPaths(values []string) ([]string, error) {
	if len(values) == 0 {
		return nil, usageErrorf("-f/--filename is required (a file, a directory, or - for standard input)")
	}
	var out []string
	stdin := false
	for _, v := range values {
		if v == "-" {
			if stdin {
				return nil, usageErrorf("-f - (standard input) may be given once")
			}
			stdin = true
			out = append(out, v)
			continue
		}
		fi, err := os.Stat(v)
		if err != nil {
			return nil, failedf("-f %s: %w", v, err)
		}
		if !fi.IsDir() {
			out = append(out, v)
			continue
		}
		entries, err := os.ReadDir(v)
		if err != nil {
			return nil, failedf("-f %s: %w", v, err)
		}
		n := len(out)
		for _, e := range entries {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".yaml", ".yml", ".json":
				if !e.IsDir() {
					out = append(out, filepath.Join(v, e.Name()))
				}
			}
		}
		if len(out) == n {
			return nil, failedf("-f %s: the directory holds no .yaml, .yml or .json file", v)
		}
	}
	return out, nil
}

// source is one manifest file read into memory.
type source struct {
	name string
	data []byte
}

// readSources reads the manifest files ("-" from stdin).
func readSources(paths []string, stdin io.Reader) ([]source, error) {
	out := make([]source, 0, len(paths))
	for _, p := range paths {
		var (
			data []byte
			err  error
		)
		name := p
		if p == "-" {
			name = stdinName
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return nil, failedf("reading %s: %w", name, err)
		}
		out = append(out, source{name: name, data: data})
	}
	return out, nil
}

// loadCluster decodes the sources together, as one input (creation times
// in input order across files, duplicates detected across files, pods
// finding their workloads in other files).
func loadCluster(srcs []source) (*manifest.Cluster, error) {
	in := make([]manifest.Source, len(srcs))
	for i, s := range srcs {
		in[i] = manifest.Source{Name: s.name, Data: s.data}
	}
	c, err := manifest.DecodeSources(in...)
	return c, manifestError(err)
}

// reportIgnored says on w which documents did not count.
func reportIgnored(w io.Writer, c *manifest.Cluster) {
	for _, ig := range c.Ignored {
		fmt.Fprintf(w, "berthctl: ignored: %s\n", ig)
	}
}

// reportWarnings says on w which documents were read but are outdated
// (1.36's scheduling.k8s.io/v1alpha2 PodGroup spelling).
func reportWarnings(w io.Writer, c *manifest.Cluster) {
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "berthctl: warning: %s\n", warn)
	}
}

// manifestError makes a manifest problem an operation failure (exit 1).
func manifestError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitFailed, err: err}
}

// clusterObjects lists a cluster's objects in the order a server accepts
// them: namespaces and priority classes before the pods naming them.
// withNamespaces includes namespaces.
func clusterObjects(c *manifest.Cluster, withNamespaces bool) []convert.Object {
	var out []convert.Object
	if withNamespaces {
		for _, ns := range c.Namespaces {
			out = append(out, convert.Object{Namespace: ns})
		}
	}
	for _, pc := range c.PriorityClasses {
		out = append(out, convert.Object{PriorityClass: pc})
	}
	for _, n := range c.Nodes {
		out = append(out, convert.Object{Node: n})
	}
	for _, pdb := range c.PDBs {
		out = append(out, convert.Object{PDB: pdb})
	}
	for _, g := range c.PodGroups {
		out = append(out, convert.Object{PodGroup: g})
	}
	for _, cg := range c.CompositePodGroups {
		out = append(out, convert.Object{CompositePodGroup: cg})
	}
	out = append(out, deviceObjects(c)...)
	out = append(out, volumeObjects(c)...)
	for _, p := range c.Pods {
		out = append(out, convert.Object{Pod: p})
	}
	return out
}

// queueObjects lists the Kueue objects of the manifests written as such, in
// the order what refers to others comes after them: flavors, cohorts,
// cluster queues, local queues, workload priority classes, and the
// Workloads written as Workload documents. The workloads core/manifest
// derives from pods, Jobs and groups are left out: berthd derives them
// itself from the pods it is sent.
func queueObjects(c *manifest.Cluster) []convert.Object {
	q := c.Queueing
	if q == nil {
		return nil
	}
	var out []convert.Object
	add := func(o any) {
		if _, written := c.Origin(o); written {
			out = append(out, convert.Object{Queueing: o})
		}
	}
	for _, f := range q.Flavors {
		add(f)
	}
	for _, co := range q.Cohorts {
		add(co)
	}
	for _, cq := range q.ClusterQueues {
		add(cq)
	}
	for _, lq := range q.LocalQueues {
		add(lq)
	}
	for _, pc := range q.PriorityClasses {
		add(pc)
	}
	for _, w := range q.Workloads {
		add(w)
	}
	return out
}

// explicitNamespaces keeps the namespaces written as documents, dropping
// those only implied by pods.
func explicitNamespaces(objs []convert.Object, c *manifest.Cluster) []convert.Object {
	return slices.DeleteFunc(objs, func(o convert.Object) bool {
		if o.Namespace == nil {
			return false
		}
		_, ok := c.Origin(o.Namespace)
		return !ok
	})
}

// originOf says where an object of c was written, "" when only implied.
func originOf(c *manifest.Cluster, o convert.Object) string {
	var key any
	switch {
	case o.Node != nil:
		key = o.Node
	case o.Pod != nil:
		key = o.Pod
	case o.Namespace != nil:
		key = o.Namespace
	case o.PriorityClass != nil:
		key = o.PriorityClass
	case o.PDB != nil:
		key = o.PDB
	case o.Queueing != nil:
		key = o.Queueing
	}
	if l, ok := c.Origin(key); ok {
		return l.String()
	}
	return ""
}

// deviceObjects lists the DRA objects of the manifests, in the order
// berthd needs them: classes, DeviceTaintRules (before the slices, so no
// device they taint is ever allocated untainted), slices, templates, then
// the claims but those made from templates for pods (berthd makes its
// own).
func deviceObjects(c *manifest.Cluster) []convert.Object {
	d := c.Devices
	if d == nil {
		return nil
	}
	var out []convert.Object
	for _, k := range slices.Sorted(maps.Keys(d.Classes)) {
		out = append(out, convert.Object{DeviceClass: d.Classes[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(d.TaintRules)) {
		out = append(out, convert.Object{DeviceTaintRule: d.TaintRules[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(d.Slices)) {
		out = append(out, convert.Object{ResourceSlice: d.Slices[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(d.Templates)) {
		out = append(out, convert.Object{ResourceClaimTemplate: d.Templates[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(d.Claims)) {
		if metav1.GetControllerOf(d.Claims[k]) == nil {
			out = append(out, convert.Object{ResourceClaim: d.Claims[k]})
		}
	}
	return out
}

// volumeObjects lists the storage objects of the manifests, classes first
// (claims without a class take the default one when they arrive).
func volumeObjects(c *manifest.Cluster) []convert.Object {
	v := c.Volumes
	if v == nil {
		return nil
	}
	var out []convert.Object
	add := func(o any) { out = append(out, convert.Object{Volume: o}) }
	for _, k := range slices.Sorted(maps.Keys(v.Classes)) {
		add(v.Classes[k])
	}
	for _, k := range slices.Sorted(maps.Keys(v.Drivers)) {
		add(v.Drivers[k])
	}
	for _, k := range slices.Sorted(maps.Keys(v.CSINodes)) {
		add(v.CSINodes[k])
	}
	for _, k := range slices.Sorted(maps.Keys(v.Capacities)) {
		add(v.Capacities[k])
	}
	for _, k := range slices.Sorted(maps.Keys(v.Volumes)) {
		add(v.Volumes[k])
	}
	for _, k := range slices.Sorted(maps.Keys(v.Claims)) {
		add(v.Claims[k])
	}
	return out
}
