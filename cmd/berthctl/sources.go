package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

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
// in input order across files, duplicates detected across files).
func loadCluster(srcs []source) (*manifest.Cluster, error) {
	if len(srcs) == 1 {
		c, err := manifest.Decode(srcs[0].name, srcs[0].data)
		return c, manifestError(err)
	}
	// manifest.LoadFiles reads files by path: standard input goes through a
	// temporary file, renamed back in messages.
	paths := make([]string, len(srcs))
	tmp := ""
	for i, s := range srcs {
		paths[i] = s.name
		if s.name != stdinName {
			continue
		}
		f, err := os.CreateTemp("", "berthctl-stdin-*.yaml")
		if err != nil {
			return nil, failedf("buffering standard input: %w", err)
		}
		tmp = f.Name()
		defer os.Remove(tmp)
		_, werr := f.Write(s.data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, failedf("buffering standard input: %w", werr)
		}
		paths[i] = tmp
	}
	c, err := manifest.LoadFiles(paths...)
	if err != nil {
		if me := (*manifest.Error)(nil); errors.As(err, &me) && tmp != "" && me.File == tmp {
			me.File = stdinName
		}
		return nil, manifestError(err)
	}
	if tmp != "" {
		for i, s := range c.Ignored {
			c.Ignored[i] = strings.Replace(s, tmp, stdinName, 1)
		}
	}
	return c, nil
}

// manifestError makes a manifest problem an operation failure (exit 1).
func manifestError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitFailed, err: err}
}

// objectKey identifies an object across decodes: kind and key.
func objectKey(r convert.Ref) string { return r.Kind.String() + " " + r.Key() }

// origins tells where each object of the sources was written, as
// "file: document N", by objectKey. Objects the manifests only imply
// (a pod's namespace) have none.
func origins(srcs []source) map[string]string {
	out := map[string]string{}
	for _, s := range srcs {
		r := utilyaml.NewYAMLReader(bufio.NewReaderSize(bytes.NewReader(s.data), 1<<20))
		for doc := 1; ; doc++ {
			raw, err := r.Read()
			if err != nil {
				break
			}
			c, err := manifest.Decode(s.name, raw)
			if err != nil {
				continue
			}
			// Decode alone adds the namespaces pods imply; keep those
			// written as Namespace documents.
			explicit := declaresNamespace(raw)
			for _, o := range clusterObjects(c, explicit) {
				k := objectKey(o.Ref())
				if _, seen := out[k]; !seen {
					out[k] = fmt.Sprintf("%s: document %d", s.name, doc)
				}
			}
		}
	}
	return out
}

// kindOnly reads a document's kind and, for a List, its items' kinds.
type kindOnly struct {
	Kind  string     `json:"kind"`
	Items []kindOnly `json:"items"`
}

// declaresNamespace reports whether a document is a Namespace or a List
// holding one.
func declaresNamespace(raw []byte) bool {
	var doc kindOnly
	if yaml.Unmarshal(raw, &doc) != nil {
		return false
	}
	return doc.Kind == "Namespace" || doc.Kind == "List" && slices.ContainsFunc(doc.Items, func(i kindOnly) bool { return i.Kind == "Namespace" })
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
	for _, p := range c.Pods {
		out = append(out, convert.Object{Pod: p})
	}
	return out
}

// explicitNamespaces keeps the namespaces that have an origin (written as
// documents), dropping those only implied by pods.
func explicitNamespaces(objs []convert.Object, origin map[string]string) []convert.Object {
	return slices.DeleteFunc(objs, func(o convert.Object) bool {
		_, ok := origin[objectKey(o.Ref())]
		return o.Namespace != nil && !ok
	})
}
