package profile

import "sort"

// CallPath is one rank's calls of one MPI function from one call site:
// callsites.csv's row and the site's frames, innermost (the MPI function's
// caller) first. A profile taken without --call-sites (or under
// MPI_THREAD_MULTIPLE, where no site is recorded) has one path per rank and
// function, from functions.csv, with Site -1, no communicator and no
// frames.
type CallPath struct {
	CallSite
	Frames []SiteFrame
}

// CallPaths lists the profile's calls by call path: callsites.csv's rows
// with their frames, or functions.csv's rows when the profile has no call
// sites.
func (p *Profile) CallPaths() []CallPath {
	var out []CallPath
	if len(p.CallSites) == 0 {
		for _, f := range p.Functions {
			out = append(out, CallPath{CallSite: CallSite{Rank: f.Rank, Function: f.Function, Site: -1, Calls: f.Calls, Time: f.Time, Late: f.Late,
				Sync: f.Sync, BytesSent: f.BytesSent, BytesRecv: f.BytesRecv}})
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
		out = append(out, CallPath{CallSite: c, Frames: frames[c.Site]})
	}
	return out
}
