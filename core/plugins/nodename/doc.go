// Package nodename is the NodeName Filter plugin: a pod that names its node
// in spec.nodeName fits only that node.
package nodename
