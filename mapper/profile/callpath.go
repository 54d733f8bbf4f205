package profile

import "sort"

// CallPath is one rank's calls of one MPI function from one call site: the
// site's frames, innermost (the MPI function's caller) first, and what the
// calls took. A profile taken without --call-sites (or under
// MPI_THREAD_MULTIPLE, where no site is recorded) has one path per rank and
// function, with no frames.
type CallPath struct {
	Rank     int
	Function string
	Site     int    // -1 without call sites
	Comm     string // comms.csv's key of the call's communicator ("" unknown or none)
	Frames   []SiteFrame
	Calls    int64
	// Time is the transfer time; Late the send-late and Sync the
	// collective wait (MPITime is their sum).
	Time, Late, Sync     float64
	BytesSent, BytesRecv int64
}

// MPITime is the path's whole time in MPI.
func (c CallPath) MPITime() float64 { return c.Time + c.Late + c.Sync }

// CallPaths lists the profile's calls by call path: callsites.csv's rows
// with their frames, or functions.csv's rows when the profile has no call
// sites.
func (p *Profile) CallPaths() []CallPath {
	var out []CallPath
	if len(p.CallSites) == 0 {
		for _, f := range p.Functions {
			out = append(out, CallPath{Rank: f.Rank, Function: f.Function, Site: -1, Calls: f.Calls, Time: f.Time, Late: f.Late, Sync: f.Sync,
				BytesSent: f.BytesSent, BytesRecv: f.BytesRecv})
		}
		return out
	}
	frames := map[int][]SiteFrame{}
	for _, f := range p.Sites {
		frames[f.Site] = append(frames[f.Site], f)
	}
	for _, fs := range frames {
		sort.Slice(fs, func(i, j int) bool { return fs[i].Frame < fs[j].Frame })
	}
	for _, c := range p.CallSites {
		out = append(out, CallPath{Rank: c.Rank, Function: c.Function, Site: c.Site, Comm: c.Comm, Frames: frames[c.Site], Calls: c.Calls, Time: c.Time, Late: c.Late,
			Sync: c.Sync, BytesSent: c.BytesSent, BytesRecv: c.BytesRecv})
	}
	return out
}
