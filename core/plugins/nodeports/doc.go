// Package nodeports is the NodePorts PreFilter/Filter plugin: a pod that
// asks for host ports fits only nodes where no placed pod holds the same
// protocol and port on the same address (0.0.0.0 clashes with every
// address).
package nodeports
