// Package features holds kube-scheduler 1.37's feature gates as Berth
// reads them: the names and defaults of the scheduling-relevant gates
// (table.go, those kubeoracle's info lists), parsed from berthd's
// --feature-gates or its configuration's featureGates in kube's spelling
// (Name=true,Other=false). A gate Berth switches (Switchable) changes
// behaviour; any other gate may be given only at the value Berth runs
// with, so that a kube command line either means the same here or is
// refused naming the gate. Gates are a value passed down with the
// scheduler configuration, never a global.
package features
