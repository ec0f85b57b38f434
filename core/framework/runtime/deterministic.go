package runtime

// WithDeterministic tells plugins, through Handle.Deterministic, that
// the run must be replayable: DefaultPreemption then starts its candidate
// search at the first node instead of a random one and breaks final ties
// by the smallest node name. Default: false.
func WithDeterministic(d bool) Option {
	return func(o *options) { o.deterministic = d }
}

// Deterministic reports whether the framework was built WithDeterministic
// (framework.Handle).
func (f *Framework) Deterministic() bool { return f.deterministic }
