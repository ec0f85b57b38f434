package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/server/deschedulesvc"
	"github.com/berthsched/berth/server/pressuresvc"
)

// duration is a time.Duration written as "10s" or "168h".
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	if string(b) == "0" {
		*d = 0
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"10s\" or \"168h\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}

// loadConfigFile reads berthd's configuration file into o, over what o
// holds.
func loadConfigFile(path string, o *options) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	if err := parseConfigFile(data, filepath.Dir(path), o); err != nil {
		return fmt.Errorf("--config %s: %w", path, err)
	}
	return nil
}

// parseConfigFile applies a configuration file's content to o; relative
// paths are resolved against dir. A refused file leaves o as it was.
func parseConfigFile(data []byte, dir string, o *options) error {
	var raw map[string]any
	if err := yaml.UnmarshalStrict(data, &raw); err != nil {
		return err
	}
	if kind, _ := raw["kind"].(string); kind == "KubeSchedulerConfiguration" {
		return errors.New("this is a KubeSchedulerConfiguration: pass it with --scheduler-config (or name it in the file as schedulerConfig); --config takes berthd's own settings")
	}
	next := *o
	byKey := map[string]setting{}
	for _, s := range settingsTable() {
		if s.key != "" {
			byKey[s.key] = s
		}
	}
	r := fileReader{byKey: byKey, dir: dir, o: &next}
	if err := r.section("", raw); err != nil {
		return err
	}
	// Every threshold is checked, so that a bad one stops berthd at start
	// with its key named.
	if _, err := next.pressure.Parse(); err != nil {
		return err
	}
	*o = next
	return nil
}

// fileReader sets the settings of a configuration file, key by key, so
// that an error names its key by its path ("tls.cert").
type fileReader struct {
	byKey map[string]setting
	dir   string
	o     *options
}

// section reads the keys of m, the section at prefix ("" or "tls."). A key
// the table has no setting or section for is an error listing the keys
// allowed there; a null value leaves its setting unset.
func (r fileReader) section(prefix string, m map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		path := prefix + k
		s, isSetting := r.byKey[path]
		sub, isMap := m[k].(map[string]any)
		switch {
		case isSetting && s.form == asPools:
			if m[k] == nil {
				continue
			}
			if err := setPools(path, m[k], s.field(r.o).(*[]pressuresvc.Pool)); err != nil {
				return err
			}
		case isSetting:
			if m[k] == nil {
				continue
			}
			if err := r.set(s, m[k]); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		case r.isSection(path + "."):
			if m[k] == nil {
				continue
			}
			if !isMap {
				return fmt.Errorf("%s: want a mapping of %s", path, strings.Join(r.keysIn(path+"."), ", "))
			}
			if err := r.section(path+".", sub); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown key %q; the keys here are %s", path, strings.Join(r.keysIn(prefix), ", "))
		}
	}
	return nil
}

// isSection says whether some key lies under prefix ("tls.").
func (r fileReader) isSection(prefix string) bool {
	for k := range r.byKey {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// keysIn are the keys and sections directly under prefix, sorted.
func (r fileReader) keysIn(prefix string) []string {
	seen := map[string]bool{}
	for k := range r.byKey {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			name, _, _ := strings.Cut(rest, ".")
			seen[name] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// set decodes v into s's field.
func (r fileReader) set(s setting, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	switch field := s.field(r.o); s.form {
	case asPath:
		var p string
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		if p != "" && !filepath.IsAbs(p) {
			p = filepath.Join(r.dir, p)
		}
		*field.(*string) = p
	case asList:
		var list []string
		if err := json.Unmarshal(b, &list); err != nil {
			return err
		}
		*field.(*string) = strings.Join(list, ",")
	case asGates:
		var gates map[string]bool
		if err := json.Unmarshal(b, &gates); err != nil {
			return err
		}
		parts := make([]string, 0, len(gates))
		for _, k := range slices.Sorted(maps.Keys(gates)) {
			parts = append(parts, fmt.Sprintf("%s=%t", k, gates[k]))
		}
		*field.(*string) = strings.Join(parts, ",")
	case asIs:
		if d, isDuration := field.(*time.Duration); isDuration {
			var dv duration
			if err := json.Unmarshal(b, &dv); err != nil {
				return err
			}
			*d = time.Duration(dv)
			return nil
		}
		// Into a fresh value: a map or a list replaces the default's.
		fresh := reflect.New(reflect.TypeOf(field).Elem())
		if err := json.Unmarshal(b, fresh.Interface()); err != nil {
			return err
		}
		reflect.ValueOf(field).Elem().Set(fresh.Elem())
	default:
		return fmt.Errorf("form %d has no reader here", s.form)
	}
	return nil
}

// setPools decodes evictionPools (at path), each pool strictly: an
// unknown key is an error naming the pool ("evictionPools[1]: ...").
func setPools(path string, v any, dst *[]pressuresvc.Pool) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: want a list of pools", path)
	}
	var pools []pressuresvc.Pool
	for i, raw := range list {
		b, err := json.Marshal(raw)
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", path, i, err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var p pressuresvc.Pool
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("%s[%d]: %w", path, i, err)
		}
		pools = append(pools, p)
	}
	*dst = pools
	return nil
}

// loadKueueConfig reads --kueue-config; "" gives Kueue's defaults.
func loadKueueConfig(path string) (quota.Config, error) {
	if path == "" {
		return quota.Config{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return quota.Config{}, fmt.Errorf("--kueue-config: %w", err)
	}
	cfg, err := config.LoadKueue(data)
	if err != nil {
		return quota.Config{}, fmt.Errorf("--kueue-config %s: %w", path, err)
	}
	return cfg, nil
}

// loadDeschedulerPolicy reads --descheduler-policy and checks it as berthd
// will run it (a PriorityClass it names is resolved at each pass); ""
// gives none.
func loadDeschedulerPolicy(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--descheduler-policy: %w", err)
	}
	if _, err := deschedulesvc.CheckPolicy(data); err != nil {
		return nil, fmt.Errorf("--descheduler-policy %s: %w", path, err)
	}
	return data, nil
}
