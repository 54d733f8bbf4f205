// Package ibsim runs a real subnet manager on a simulated InfiniBand
// fabric for tests: ibsim (ibsim-utils) simulates the switches and
// adapters of an ibnetdiscover dump, which OpenSM and infiniband-diags
// reach through libumad2sim by the management packets they send to a
// real fabric; OpenSM routes it once with the engine asked for, and the
// fabric's description and forwarding tables are written as a site has
// them (ibnetdiscover and dump_fts output, OpenSM's own dumps). Each
// simulator has its own socket, so several can run at once.
package ibsim
