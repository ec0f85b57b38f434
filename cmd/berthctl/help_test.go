package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// No command's help cites what a user cannot open: files the repository
// does not have, or the project's issue numbers.
func TestHelpHasNoInternalReferences(t *testing.T) {
	internal := regexp.MustCompile(`DESIGN\.md|[Ii]ssue \d|issue #\d`)
	root := (&app{}).rootCommand(func(string) string { return "" })
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		got := berthctl(t, nil, "", append(strings.Fields(strings.TrimPrefix(cmd.CommandPath(), "berthctl")), "--help")...)
		if got.code != exitOK || got.stdout == "" {
			t.Errorf("%s --help: exit %d, stderr %q", cmd.CommandPath(), got.code, got.stderr)
		}
		if m := internal.FindString(got.stdout); m != "" {
			t.Errorf("%s --help cites %q", cmd.CommandPath(), m)
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
