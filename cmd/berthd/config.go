package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/server/pressuresvc"
)

// fileConfig is berthd's configuration file (--config): the settings of
// the flags of the same names, in YAML (or JSON). Unset keys keep the
// flags' defaults; flags given on the command line win over the file.
// Relative paths are relative to the file's directory.
type fileConfig struct {
	Listen          *string     `json:"listen"`
	MetricsListen   *string     `json:"metricsListen"`
	DataDir         *string     `json:"dataDir"`
	SchedulerConfig *string     `json:"schedulerConfig"`
	LogLevel        *slog.Level `json:"logLevel"`
	ShutdownTimeout *duration   `json:"shutdownTimeout"`
	RetainDecisions *int        `json:"retainDecisions"`
	RetainFor       *duration   `json:"retainFor"`
	MaxBatchObjects *int        `json:"maxBatchObjects"`
	TLS             *fileTLS    `json:"tls"`
	TokenFile       *string     `json:"tokenFile"`
	Deterministic   *bool       `json:"deterministic"`

	InitialSyncTimeout *duration `json:"initialSyncTimeout"`
	GCPercent          *int      `json:"gcPercent"`
	Dashboard          *bool     `json:"dashboard"`

	TaintNodesByCondition *bool `json:"taintNodesByCondition"`

	MaxStreamsPerConn      *uint32 `json:"maxStreamsPerConn"`
	MaxStreams             *int64  `json:"maxStreams"`
	MaxRequestBytesPerConn *int64  `json:"maxRequestBytesPerConn"`
	MaxRequestBytes        *int64  `json:"maxRequestBytes"`

	// The bounds of AdminService.Simulate (--simulate-*).
	SimulateMaxObjects       *int      `json:"simulateMaxObjects"`
	SimulateMaxPods          *int      `json:"simulateMaxPods"`
	SimulateMaxAttempts      *int      `json:"simulateMaxAttempts"`
	SimulateMaxResponseBytes *int      `json:"simulateMaxResponseBytes"`
	SimulateTimeout          *duration `json:"simulateTimeout"`
	SimulateConcurrency      *int      `json:"simulateConcurrency"`

	// The store backend and the etcd group (--store, --advertise-address,
	// --etcd-*).
	Store            *string   `json:"store"`
	AdvertiseAddress *string   `json:"advertiseAddress"`
	Etcd             *fileEtcd `json:"etcd"`

	// Node-pressure eviction, with the kubelet's names (server/pressuresvc).
	EvictionHard                     *map[string]string `json:"evictionHard"`
	EvictionSoft                     *map[string]string `json:"evictionSoft"`
	EvictionSoftGracePeriod          *map[string]string `json:"evictionSoftGracePeriod"`
	EvictionMinimumReclaim           *map[string]string `json:"evictionMinimumReclaim"`
	EvictionPressureTransitionPeriod *string            `json:"evictionPressureTransitionPeriod"`
	EvictionMaxPodGracePeriod        *int64             `json:"evictionMaxPodGracePeriod"`
	EvictionStatsMaxAge              *string            `json:"evictionStatsMaxAge"`
	EvictionPools                    *[]any             `json:"evictionPools"`
}

// fileTLS is the tls section: the --tls-* flags.
type fileTLS struct {
	Cert     *string `json:"cert"`
	Key      *string `json:"key"`
	ClientCA *string `json:"clientCA"`
}

// fileEtcd is the etcd section: the --etcd-* flags. There is no password
// key: passwordFile names a file holding it.
type fileEtcd struct {
	Endpoints    *[]string `json:"endpoints"`
	Cert         *string   `json:"cert"`
	Key          *string   `json:"key"`
	CA           *string   `json:"ca"`
	Username     *string   `json:"username"`
	PasswordFile *string   `json:"passwordFile"`
	Prefix       *string   `json:"prefix"`
	LeaseTTL     *duration `json:"leaseTTL"`
}

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
// paths are resolved against dir.
func parseConfigFile(data []byte, dir string, o *options) error {
	var raw map[string]any
	if err := yaml.UnmarshalStrict(data, &raw); err != nil {
		return err
	}
	if kind, _ := raw["kind"].(string); kind == "KubeSchedulerConfiguration" {
		return errors.New("this is a KubeSchedulerConfiguration: pass it with --scheduler-config (or name it in the file as schedulerConfig); --config takes berthd's own settings")
	}
	var fc fileConfig
	if err := decode("", raw, reflect.ValueOf(&fc).Elem()); err != nil {
		return err
	}
	resolve := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	set(&o.listen, fc.Listen)
	set(&o.metricsListen, fc.MetricsListen)
	setPath(&o.dataDir, fc.DataDir, resolve)
	setPath(&o.schedulerConfig, fc.SchedulerConfig, resolve)
	set(&o.logLevel, fc.LogLevel)
	setDuration(&o.shutdownTimeout, fc.ShutdownTimeout)
	set(&o.retainDecisions, fc.RetainDecisions)
	setDuration(&o.retainFor, fc.RetainFor)
	set(&o.maxMutations, fc.MaxBatchObjects)
	setPath(&o.tokenFile, fc.TokenFile, resolve)
	set(&o.deterministic, fc.Deterministic)
	setDuration(&o.initialSync, fc.InitialSyncTimeout)
	set(&o.gcPercent, fc.GCPercent)
	set(&o.dashboard, fc.Dashboard)
	set(&o.taintNodesByCondition, fc.TaintNodesByCondition)
	set(&o.limits.ConnStreams, fc.MaxStreamsPerConn)
	set(&o.limits.Streams, fc.MaxStreams)
	set(&o.limits.ConnRequestBytes, fc.MaxRequestBytesPerConn)
	set(&o.limits.RequestBytes, fc.MaxRequestBytes)
	set(&o.simulation.MaxObjects, fc.SimulateMaxObjects)
	set(&o.simulation.MaxPods, fc.SimulateMaxPods)
	set(&o.simulation.MaxAttempts, fc.SimulateMaxAttempts)
	set(&o.simulation.MaxResponseBytes, fc.SimulateMaxResponseBytes)
	setDuration(&o.simulation.Timeout, fc.SimulateTimeout)
	set(&o.simulation.Concurrency, fc.SimulateConcurrency)
	if t := fc.TLS; t != nil {
		setPath(&o.tls.Cert, t.Cert, resolve)
		setPath(&o.tls.Key, t.Key, resolve)
		setPath(&o.tls.ClientCA, t.ClientCA, resolve)
	}
	set(&o.store, fc.Store)
	set(&o.advertise, fc.AdvertiseAddress)
	if e := fc.Etcd; e != nil {
		if e.Endpoints != nil {
			o.etcd.endpoints = strings.Join(*e.Endpoints, ",")
		}
		setPath(&o.etcd.cert, e.Cert, resolve)
		setPath(&o.etcd.key, e.Key, resolve)
		setPath(&o.etcd.ca, e.CA, resolve)
		set(&o.etcd.username, e.Username)
		setPath(&o.etcd.passwordFile, e.PasswordFile, resolve)
		set(&o.etcd.prefix, e.Prefix)
		setDuration(&o.etcd.leaseTTL, e.LeaseTTL)
	}
	return setPressure(&fc, &o.pressure)
}

// setPressure applies the eviction keys and checks them all, so that a
// bad threshold stops berthd at start with the key named.
func setPressure(fc *fileConfig, ps *pressuresvc.Settings) error {
	set(&ps.EvictionHard, fc.EvictionHard)
	set(&ps.EvictionSoft, fc.EvictionSoft)
	set(&ps.EvictionSoftGracePeriod, fc.EvictionSoftGracePeriod)
	set(&ps.EvictionMinimumReclaim, fc.EvictionMinimumReclaim)
	set(&ps.EvictionPressureTransitionPeriod, fc.EvictionPressureTransitionPeriod)
	set(&ps.EvictionMaxPodGracePeriod, fc.EvictionMaxPodGracePeriod)
	set(&ps.EvictionStatsMaxAge, fc.EvictionStatsMaxAge)
	if fc.EvictionPools != nil {
		ps.EvictionPools = nil
		for i, raw := range *fc.EvictionPools {
			b, err := json.Marshal(raw)
			if err != nil {
				return fmt.Errorf("evictionPools[%d]: %w", i, err)
			}
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			var p pressuresvc.Pool
			if err := dec.Decode(&p); err != nil {
				return fmt.Errorf("evictionPools[%d]: %w", i, err)
			}
			ps.EvictionPools = append(ps.EvictionPools, p)
		}
	}
	_, err := ps.Parse()
	return err
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func setPath(dst *string, v *string, resolve func(string) string) {
	if v != nil {
		*dst = resolve(*v)
	}
}

func setDuration(dst *time.Duration, v *duration) {
	if v != nil {
		*dst = time.Duration(*v)
	}
}

// decode sets the fields of the struct v from m, key by key, so that an
// error names its key by its path ("tls.cert"). A key v has no field for is
// an error listing the keys allowed there; a null value leaves its field
// unset.
func decode(prefix string, m map[string]any, v reflect.Value) error {
	fields := map[string]reflect.Value{}
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = v.Field(i)
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		f, ok := fields[k]
		if !ok {
			return fmt.Errorf("unknown key %q; the keys here are %s", prefix+k, strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
		}
		if m[k] == nil {
			continue
		}
		val := reflect.New(f.Type().Elem()) // every field is a pointer
		if sub, isMap := m[k].(map[string]any); isMap && val.Elem().Kind() == reflect.Struct {
			if err := decode(prefix+k+".", sub, val.Elem()); err != nil {
				return err
			}
		} else {
			b, err := json.Marshal(m[k])
			if err != nil {
				return fmt.Errorf("%s: %w", prefix+k, err)
			}
			if err := json.Unmarshal(b, val.Interface()); err != nil {
				return fmt.Errorf("%s: %w", prefix+k, err)
			}
		}
		f.Set(val)
	}
	return nil
}
