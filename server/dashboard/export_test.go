package dashboard

// NewFleetDashboard is a Dashboard over a generated fleet of nodes and pods
// (fleetAdmin), for the browser tests of package dashboard_test: building
// a fleet of 50,000 nodes in a real berthd takes longer than the test of
// the page that shows it.
func NewFleetDashboard(nodes, pods int) (*Dashboard, error) {
	return New(newFleet(nodes, pods), fakeExplainer{}, &fakeLog{first: 1, froms: make(chan uint64, 64)}, Options{})
}
