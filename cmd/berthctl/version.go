package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/cmd/internal/version"
)

func (a *app) versionCommand() *cobra.Command {
	var clientOnly bool
	cmd := &cobra.Command{
		Use:   "version [--client]",
		Short: "Print berthctl's version and commit, and those of the berthd at --server",
		Long: `version prints berthctl's build (module version, commit, Go version), then
asks the berthd at --server for its own (AdminService.ServerInfo). With
--client, or as berthctl --version, it prints berthctl's alone. It exits 3
when berthd cannot be reached, after printing berthctl's.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(a.out, "berthctl", version.Get())
			if clientOnly {
				return nil
			}
			return a.serverVersion(cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&clientOnly, "client", false, "print berthctl's version only, without asking berthd")
	return cmd
}

func (a *app) serverVersion(ctx context.Context) error {
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	callCtx, cancel := c.call(ctx)
	defer cancel()
	info, err := c.admin.ServerInfo(callCtx, &berthv1.ServerInfoRequest{})
	if err != nil {
		return c.err(ctx, err, "")
	}
	v := info.GetVersion()
	if v == "" {
		v = "(version unknown)"
	}
	fmt.Fprintf(a.out, "berthd %s at %s\n", v, c.Target())
	return nil
}
