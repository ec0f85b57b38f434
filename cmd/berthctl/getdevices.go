package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// listDevices reads the DRA objects of kind from berthd.
func listDevices(ctx context.Context, c *client, kind berthv1.ObjectKind, namespace string) (*berthv1.ListDeviceObjectsResponse, error) {
	callCtx, cancel := c.call(ctx)
	defer cancel()
	resp, err := c.admin.ListDeviceObjects(callCtx, &berthv1.ListDeviceObjectsRequest{Kind: kind, Namespace: namespace})
	if err != nil {
		return nil, c.err(ctx, err, "")
	}
	return resp, nil
}

func (a *app) getClaims(ctx context.Context, c *client, o *getOptions) error {
	resp, err := listDevices(ctx, c, berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, o.namespace)
	if err != nil {
		return err
	}
	if len(resp.GetObjects()) == 0 {
		a.emptyHint(ctx, c, "resource claims")
	}
	if o.output != "text" {
		return writeStructured(a.out, o.output, resp)
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tALLOCATED\tNODE\tDEVICES\tRESERVED")
		for _, obj := range resp.GetObjects() {
			cl := obj.GetResourceClaim()
			alloc := cl.GetStatus().GetAllocation()
			var devices, users []string
			for _, d := range alloc.GetDevices() {
				dev := d.GetRequest() + "=" + d.GetDriver() + "/" + d.GetPool() + "/" + d.GetDevice()
				if d.GetAdminAccess() {
					dev += "(admin)"
				}
				devices = append(devices, dev)
			}
			for _, r := range cl.GetStatus().GetReservedFor() {
				users = append(users, r.GetName())
			}
			allocated, node := "no", "-"
			if alloc != nil {
				allocated, node = "yes", allocationNode(alloc.GetNodeSelector())
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cl.GetNamespace(), cl.GetName(), allocated, node,
				dash(strings.Join(devices, ",")), dash(strings.Join(users, ",")))
		}
	})
}

// allocationNode names where an allocation's devices can be used: the
// node of a selector naming one node (node-local devices), * for every
// node, "selector" otherwise (network-attached devices).
func allocationNode(sel *berthv1.NodeSelector) string {
	if sel == nil {
		return "*"
	}
	if terms := sel.GetNodeSelectorTerms(); len(terms) == 1 && len(terms[0].GetMatchExpressions()) == 0 {
		if f := terms[0].GetMatchFields(); len(f) == 1 && f[0].GetKey() == "metadata.name" && len(f[0].GetValues()) == 1 {
			return f[0].GetValues()[0]
		}
	}
	return "selector"
}

func (a *app) getDeviceClasses(ctx context.Context, c *client, o *getOptions) error {
	resp, err := listDevices(ctx, c, berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS, "")
	if err != nil {
		return err
	}
	if o.output != "text" {
		return writeStructured(a.out, o.output, resp)
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAME\tSELECTORS")
		for _, obj := range resp.GetObjects() {
			dc := obj.GetDeviceClass()
			var sels []string
			for _, s := range dc.GetSelectors() {
				sels = append(sels, s.GetCel())
			}
			fmt.Fprintf(tw, "%s\t%s\n", dc.GetName(), dash(strings.Join(sels, " && ")))
		}
	})
}

func (a *app) getResourceSlices(ctx context.Context, c *client, o *getOptions) error {
	resp, err := listDevices(ctx, c, berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE, "")
	if err != nil {
		return err
	}
	if o.output != "text" {
		return writeStructured(a.out, o.output, resp)
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAME\tDRIVER\tPOOL\tGENERATION\tNODE\tDEVICES")
		for _, obj := range resp.GetObjects() {
			s := obj.GetResourceSlice()
			where := s.GetNodeName()
			switch {
			case s.GetAllNodes():
				where = "*"
			case s.GetNodeSelector() != nil:
				where = "selector"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\n", s.GetName(), s.GetDriver(), s.GetPool().GetName(),
				s.GetPool().GetGeneration(), where, len(s.GetDevices()))
		}
	})
}

func (a *app) getDeviceTaintRules(ctx context.Context, c *client, o *getOptions) error {
	resp, err := listDevices(ctx, c, berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE, "")
	if err != nil {
		return err
	}
	if o.output != "text" {
		return writeStructured(a.out, o.output, resp)
	}
	return writeTable(a.out, func(tw io.Writer) {
		fmt.Fprintln(tw, "NAME\tDEVICES\tTAINT")
		for _, obj := range resp.GetObjects() {
			r := obj.GetDeviceTaintRule()
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.GetName(), taintSelectorText(r.GetDeviceSelector()), deviceTaintText(r.GetTaint()))
		}
	})
}

// taintSelectorText is a rule's selector as driver/pool/device, * for a
// field that matches any; "-" for no selector (it matches no device).
func taintSelectorText(sel *berthv1.DeviceTaintSelector) string {
	if sel == nil {
		return "-"
	}
	part := func(v *string) string {
		if v == nil {
			return "*"
		}
		return *v
	}
	return part(sel.Driver) + "/" + part(sel.Pool) + "/" + part(sel.Device)
}

// deviceTaintText is a taint as key=value:Effect, kube's spelling of the
// effect.
func deviceTaintText(t *berthv1.DeviceTaint) string {
	effect := map[berthv1.DeviceTaintEffect]string{
		berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NONE:        "None",
		berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_SCHEDULE: "NoSchedule",
		berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_EXECUTE:  "NoExecute",
	}[t.GetEffect()]
	out := t.GetKey()
	if t.GetValue() != "" {
		out += "=" + t.GetValue()
	}
	return out + ":" + dash(effect)
}
