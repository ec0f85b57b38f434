package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func (a *app) descheduleCommand() *cobra.Command {
	var dryRun, last bool
	var output string
	cmd := &cobra.Command{
		Use:   "deschedule [--dry-run] [--last] [-o text|json]",
		Short: "Run berthd's descheduler policy now (AdminService.Deschedule)",
		Long: `deschedule runs berthd's --descheduler-policy once: the Kubernetes Descheduler's
strategies, each eviction kept only if Berth's scheduler places the pod's
replacement on another node and the violation or imbalance is reduced there.
It prints the plan: the moves (pod, from, to, strategy, reason) and the
candidates left out with why. Without --dry-run the moves are evicted (cause
deschedule, within disruption budgets). --last prints the last plan made,
by this command or by the policy's deschedulingInterval, and runs nothing.

-o json prints one JSON object per line: each move
{"pod":"ns/name","from":"n1","to":"n2","profile":"p","strategy":"LowNodeUtilization","reason":"...","revision":12}
(revision 0 in a dry run), each skipped candidate
{"pod":"ns/name","from":"n1","profile":"p","strategy":"...","skipped":"why","landsBack":true},
then {"moves":N,"skipped":M,"dryRun":true,"planSeconds":0.01,"passSkipped":false}.

Exit codes: 0 a plan was made (even an empty one); 1 berthd runs no
descheduler policy or refused; 3 berthd is unreachable.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := oneOf("output", output, "text", "json"); err != nil {
				return err
			}
			return a.deschedule(cmd.Context(), dryRun, last, output)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "plan only: evict nothing")
	cmd.Flags().BoolVar(&last, "last", false, "print the last plan made, run nothing")
	outputFlag(cmd.Flags(), &output, "text", "output format: text or json (one line per move and skipped candidate)")
	return cmd
}

func (a *app) deschedule(ctx context.Context, dryRun, last bool, output string) error {
	c, err := a.conn.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	callCtx, cancel := c.call(ctx)
	defer cancel()
	resp, err := c.admin.Deschedule(callCtx, &berthv1.DescheduleRequest{DryRun: dryRun, Last: last})
	if err != nil {
		return c.err(ctx, err, "")
	}
	plan := resp.GetPlan()
	if plan == nil {
		_, err := fmt.Fprintln(a.out, "no plan was made yet")
		return err
	}
	if output == "json" {
		return writePlanJSON(a.out, plan)
	}
	return writePlanText(a.out, plan)
}

type planMoveLine struct {
	Pod      string `json:"pod"`
	From     string `json:"from"`
	To       string `json:"to"`
	Profile  string `json:"profile"`
	Strategy string `json:"strategy"`
	Reason   string `json:"reason"`
	Revision uint64 `json:"revision"`
}

type planSkipLine struct {
	Pod       string `json:"pod"`
	From      string `json:"from"`
	Profile   string `json:"profile"`
	Strategy  string `json:"strategy"`
	Skipped   string `json:"skipped"`
	LandsBack bool   `json:"landsBack"`
}

type planSummaryLine struct {
	Moves       int     `json:"moves"`
	Skipped     int     `json:"skipped"`
	DryRun      bool    `json:"dryRun"`
	PlanSeconds float64 `json:"planSeconds"`
	PassSkipped bool    `json:"passSkipped"`
}

func writePlanJSON(w io.Writer, p *berthv1.DeschedulePlan) error {
	enc := json.NewEncoder(w)
	for _, m := range p.GetMoves() {
		if err := enc.Encode(planMoveLine{Pod: podKey(m.GetPod()), From: m.GetFrom(), To: m.GetTo(), Profile: m.GetProfile(),
			Strategy: m.GetStrategy(), Reason: m.GetReason(), Revision: m.GetRevision()}); err != nil {
			return failedf("writing: %w", err)
		}
	}
	for _, s := range p.GetSkipped() {
		if err := enc.Encode(planSkipLine{Pod: podKey(s.GetPod()), From: s.GetFrom(), Profile: s.GetProfile(),
			Strategy: s.GetStrategy(), Skipped: s.GetReason(), LandsBack: s.GetLandsBack()}); err != nil {
			return failedf("writing: %w", err)
		}
	}
	if err := enc.Encode(planSummaryLine{Moves: len(p.GetMoves()), Skipped: len(p.GetSkipped()), DryRun: p.GetDryRun(),
		PlanSeconds: p.GetPlanSeconds(), PassSkipped: p.GetPassSkipped()}); err != nil {
		return failedf("writing: %w", err)
	}
	return nil
}

// writePlanText prints the plan for people:
//
//	move default/web-1 n1 -> n2 (LowNodeUtilization): utilization evens out
//	skip default/db-0 on n1 (RemoveDuplicates): the scheduler would place it back on n1
//	2 moves (dry run), 1 skipped, planned in 12ms
func writePlanText(w io.Writer, p *berthv1.DeschedulePlan) error {
	var b strings.Builder
	for _, m := range p.GetMoves() {
		to := m.GetTo()
		if to == "" {
			to = "(finished)"
		}
		fmt.Fprintf(&b, "move %s %s -> %s (%s): %s\n", podKey(m.GetPod()), m.GetFrom(), to, m.GetStrategy(), m.GetReason())
	}
	for _, s := range p.GetSkipped() {
		fmt.Fprintf(&b, "skip %s on %s (%s): %s\n", podKey(s.GetPod()), s.GetFrom(), s.GetStrategy(), s.GetReason())
	}
	mode := ""
	if p.GetDryRun() {
		mode = " (dry run)"
	}
	if p.GetPassSkipped() {
		b.WriteString("pass skipped: fewer than two ready nodes\n")
	}
	fmt.Fprintf(&b, "%d moves%s, %d skipped, planned in %.0fms\n", len(p.GetMoves()), mode, len(p.GetSkipped()), p.GetPlanSeconds()*1000)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return failedf("writing: %w", err)
	}
	return nil
}
