package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// volumeKinds are get's names of the storage kinds, with their aliases.
var volumeKinds = map[string]berthv1.ObjectKind{
	"pv": berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME, "pvs": berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME,
	"persistentvolumes": berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME,
	"pvc":               berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, "pvcs": berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM,
	"persistentvolumeclaims": berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM,
	"storageclasses":         berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS, "storageclass": berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS,
	"sc":       berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS,
	"csinodes": berthv1.ObjectKind_OBJECT_KIND_CSI_NODE, "csinode": berthv1.ObjectKind_OBJECT_KIND_CSI_NODE,
	"csidrivers": berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER, "csidriver": berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER,
	"csistoragecapacities": berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY, "csistoragecapacity": berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY,
}

// getVolumes lists the storage objects of kind (ListVolumeObjects).
func (a *app) getVolumes(kind berthv1.ObjectKind) func(context.Context, *client, *getOptions) error {
	return func(ctx context.Context, c *client, o *getOptions) error {
		ns := o.namespace
		if kind != berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM && kind != berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY {
			ns = ""
		}
		callCtx, cancel := c.call(ctx)
		defer cancel()
		resp, err := c.admin.ListVolumeObjects(callCtx, &berthv1.ListVolumeObjectsRequest{Kind: kind, Namespace: ns})
		if err != nil {
			return c.err(ctx, err, "")
		}
		if len(resp.GetObjects()) == 0 {
			a.emptyHint(ctx, c, strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(kind.String(), "OBJECT_KIND_"), "_", " "))+"s")
		}
		if o.output != "text" {
			return writeStructured(a.out, o.output, resp)
		}
		return writeTable(a.out, func(tw io.Writer) { volumeTable(tw, kind, resp.GetObjects()) })
	}
}

func volumeTable(tw io.Writer, kind berthv1.ObjectKind, objs []*berthv1.Object) {
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME:
		fmt.Fprintln(tw, "NAME\tCAPACITY\tACCESS MODES\tSTATUS\tCLAIM\tSTORAGECLASS\tDRIVER")
		for _, obj := range objs {
			pv := obj.GetPersistentVolume()
			claim := "-"
			if r := pv.GetClaimRef(); r != nil {
				claim = r.GetNamespace() + "/" + r.GetName()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pv.GetName(), bytesText(pv.GetCapacityBytes()), accessModesText(pv.GetAccessModes()),
				phaseText(pv.GetPhase().String(), "PERSISTENT_VOLUME_PHASE_", "Available"), claim, dash(pv.GetStorageClassName()), dash(pv.GetCsi().GetDriver()))
		}
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM:
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tSTATUS\tVOLUME\tREQUEST\tACCESS MODES\tSTORAGECLASS\tSELECTED NODE")
		for _, obj := range objs {
			c := obj.GetPersistentVolumeClaim()
			class := "-"
			if c.StorageClassName != nil {
				class = fmt.Sprintf("%q", c.GetStorageClassName())
				if c.GetStorageClassName() != "" {
					class = c.GetStorageClassName()
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.GetNamespace(), c.GetName(),
				phaseText(c.GetPhase().String(), "PERSISTENT_VOLUME_CLAIM_PHASE_", "Pending"), dash(c.GetVolumeName()),
				bytesText(c.GetRequestBytes()), accessModesText(c.GetAccessModes()), class, dash(c.GetSelectedNode()))
		}
	case berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS:
		fmt.Fprintln(tw, "NAME\tPROVISIONER\tBINDING MODE\tDEFAULT\tALLOWED TOPOLOGIES")
		for _, obj := range objs {
			sc := obj.GetStorageClass()
			var terms []string
			for _, t := range sc.GetAllowedTopologies() {
				var reqs []string
				for _, r := range t.GetMatchLabelExpressions() {
					reqs = append(reqs, r.GetKey()+" in ("+strings.Join(r.GetValues(), ",")+")")
				}
				terms = append(terms, strings.Join(reqs, " && "))
			}
			mode := "Immediate"
			if sc.GetVolumeBindingMode() == berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER {
				mode = "WaitForFirstConsumer"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%s\n", sc.GetName(), sc.GetProvisioner(), mode, sc.GetIsDefault(), dash(strings.Join(terms, " || ")))
		}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_NODE:
		fmt.Fprintln(tw, "NAME\tDRIVERS")
		for _, obj := range objs {
			n := obj.GetCsiNode()
			var drivers []string
			for _, d := range n.GetDrivers() {
				limit := "unlimited"
				if d.AllocatableCount != nil {
					limit = strconv.Itoa(int(d.GetAllocatableCount()))
				}
				drivers = append(drivers, d.GetName()+"="+limit)
			}
			fmt.Fprintf(tw, "%s\t%s\n", n.GetName(), dash(strings.Join(drivers, ",")))
		}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER:
		fmt.Fprintln(tw, "NAME\tATTACH REQUIRED\tSTORAGE CAPACITY")
		for _, obj := range objs {
			d := obj.GetCsiDriver()
			fmt.Fprintf(tw, "%s\t%t\t%t\n", d.GetName(), d.AttachRequired == nil || d.GetAttachRequired(), d.GetStorageCapacity())
		}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY:
		fmt.Fprintln(tw, "NAMESPACE\tNAME\tSTORAGECLASS\tCAPACITY\tMAX VOLUME SIZE")
		for _, obj := range objs {
			c := obj.GetCsiStorageCapacity()
			capacity, maxSize := "-", "-"
			if c.CapacityBytes != nil {
				capacity = bytesText(c.GetCapacityBytes())
			}
			if c.MaximumVolumeSizeBytes != nil {
				maxSize = bytesText(c.GetMaximumVolumeSizeBytes())
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.GetNamespace(), c.GetName(), c.GetStorageClassName(), capacity, maxSize)
		}
	}
}

func accessModesText(modes []berthv1.PersistentVolumeAccessMode) string {
	short := map[berthv1.PersistentVolumeAccessMode]string{
		berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE:     "RWO",
		berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_ONLY_MANY:      "ROX",
		berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_MANY:     "RWX",
		berthv1.PersistentVolumeAccessMode_PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE_POD: "RWOP",
	}
	var out []string
	for _, m := range modes {
		out = append(out, short[m])
	}
	return dash(strings.Join(out, ","))
}

// phaseText is an enum value's Kubernetes spelling ("Bound"), unset the
// default given.
func phaseText(enum, prefix, unset string) string {
	s := strings.TrimPrefix(enum, prefix)
	if s == "UNSPECIFIED" || s == "" {
		return unset
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}
