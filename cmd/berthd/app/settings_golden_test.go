package app

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// berthd's flags (names, defaults, help) and its configuration file's keys
// are what users' scripts and files depend on: they change only on
// purpose, with the golden files (go test -update) and README.
func TestSettingsGolden(t *testing.T) {
	t.Setenv("GOGC", "")
	var help bytes.Buffer
	if code := Main(t.Context(), []string{"--help"}, &help, &help); code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	var keys bytes.Buffer
	for _, section := range []string{"", "tls.", "etcd."} {
		o := defaultOptions()
		err := parseConfigFile([]byte(nestedUnknown(section)), t.TempDir(), &o)
		keys.WriteString(err.Error() + "\n")
	}
	for name, got := range map[string][]byte{"help.golden": help.Bytes(), "keys.golden": keys.Bytes()} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
		}
	}
}

// nestedUnknown is a file with an unknown key in section ("tls.").
func nestedUnknown(section string) string {
	if section == "" {
		return "zzz: 1\n"
	}
	return section[:len(section)-1] + ":\n  zzz: 1\n"
}

// Every setting has a flag or a key, none twice, and every flag's field
// has a type register takes (it panics on one it does not).
func TestSettingsTable(t *testing.T) {
	flags, keys := map[string]bool{}, map[string]bool{}
	for _, s := range settingsTable() {
		switch {
		case s.flag == "" && s.key == "":
			t.Errorf("a setting with neither flag nor key: %+v", s)
		case s.flag != "" && flags[s.flag]:
			t.Errorf("flag --%s twice", s.flag)
		case s.key != "" && keys[s.key]:
			t.Errorf("key %s twice", s.key)
		case s.flag != "" && s.usage == "":
			t.Errorf("flag --%s without help", s.flag)
		}
		flags[s.flag], keys[s.key] = s.flag != "", s.key != ""
	}
	o := defaultOptions()
	o.register(flag.NewFlagSet("berthd", flag.ContinueOnError))
}
